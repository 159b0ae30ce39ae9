package execdriver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomadish/nomadish/drivers/base"
)

// setupV2 creates <root>/nomadish (enabling the controllers the root
// delegates to it) and <root>/nomadish/<name> with the task's limits, and
// returns the task's cgroup. The task is put into it at clone time
// (SysProcAttr.UseCgroupFD), so no thread ever moves.
func setupV2(root, name string, res base.Resources, pidsLimit int64) (string, error) {
	parent := filepath.Join(root, cgroupParent)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("creating cgroup %s: %w", parent, err)
	}
	var enable []string
	for _, c := range []string{"memory", "cpu", "pids", "cpuset"} {
		if contains(strings.Fields(readCgString(root, "cgroup.subtree_control")), c) &&
			!contains(strings.Fields(readCgString(parent, "cgroup.subtree_control")), c) {
			enable = append(enable, "+"+c)
		}
	}
	if len(enable) > 0 {
		if err := writeCgString(parent, "cgroup.subtree_control", strings.Join(enable, " ")); err != nil {
			return "", err
		}
	}
	p := filepath.Join(parent, name)
	if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("creating cgroup %s: %w", p, err)
	}
	err := applyV2(p, res)
	if err == nil && pidsLimit > 0 {
		err = writeCg(p, "pids.max", pidsLimit)
	}
	if err == nil && len(res.Cores) > 0 {
		parentMems := readCgString(parent, "cpuset.mems.effective")
		err = writeCgString(p, "cpuset.mems", cpusetMems(res, parentMems))
	}
	if err != nil {
		removeCgroups([]string{p})
		return "", err
	}
	return p, nil
}

// applyV2 writes res into the task's v2 cgroup: memory.max is the hard
// limit and memory.low the soft one (memory when memory_max is set, else
// 0), cpu.weight is cpu shares on the v2 scale, cpuset.cpus the cores
// (only when res has cores).
func applyV2(p string, res base.Resources) error {
	if hard, soft := memoryLimits(res); hard > 0 {
		if err := writeCg(p, "memory.max", hard); err != nil {
			return err
		}
		if err := writeCg(p, "memory.low", soft); err != nil {
			return err
		}
	}
	if res.CPUShares > 0 {
		if err := writeCg(p, "cpu.weight", sharesToWeight(res.CPUShares)); err != nil {
			return err
		}
	}
	if len(res.Cores) > 0 {
		return writeCgString(p, "cpuset.cpus", res.CoreList())
	}
	return nil
}

// sharesToWeight maps v1 cpu.shares [2, 262144] onto v2 cpu.weight
// [1, 10000], as runc and the kernel documentation do.
func sharesToWeight(shares int64) int64 {
	shares = min(max(shares, 2), 262144)
	return 1 + (shares-2)*9999/262142
}
