package execdriver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// cgroupRoot is where the cgroup file systems are mounted: cgroup v1 has
// one mount per controller below it (memory, cpu, pids, cpuset); cgroup v2
// is the mount itself, or its "unified" sub-directory on a hybrid host.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupParent is the directory (under each v1 controller, or under the v2
// mount) holding one cgroup per task ID, so several clients on one host
// never collide.
const cgroupParent = "nomadish"

// DefaultPidsLimit is the pids.max of an exec task when the plugin config
// has no pids_limit (Nomad has no default; 4096 stops a fork bomb and fits
// any real service).
const DefaultPidsLimit = 4096

// v2Controllers must all be enabled in the cgroup.subtree_control of the v2
// mount for cgroup v2 to be used.
var v2Controllers = []string{"memory", "cpu", "pids"}

// cgroupLayout is how this host's cgroups are used. The zero value means
// none are usable.
type cgroupLayout struct {
	V2 bool
	// Root is the v1 controllers' parent dir, or the v2 mount.
	Root string
}

// usable reports whether tasks can get cgroups.
func (l cgroupLayout) usable() bool { return l.Root != "" }

// detectCgroups picks the cgroup version under root (cgroupRoot in
// production, a fake tree in tests): v2 when a cgroup2 mount (root, or
// root/unified on a hybrid host) has memory, cpu and pids in its
// cgroup.subtree_control; else v1 when root/memory is a memory controller;
// else an error saying why neither is usable.
func detectCgroups(root string) (cgroupLayout, error) {
	for _, v2 := range []string{root, filepath.Join(root, "unified")} {
		b, err := os.ReadFile(filepath.Join(v2, "cgroup.subtree_control"))
		if err != nil {
			continue
		}
		enabled := strings.Fields(string(b))
		if containsAll(enabled, v2Controllers) {
			return cgroupLayout{V2: true, Root: v2}, nil
		}
	}
	if _, err := os.Stat(filepath.Join(root, "memory", "memory.limit_in_bytes")); err == nil {
		return cgroupLayout{Root: root}, nil
	}
	return cgroupLayout{}, fmt.Errorf("no usable cgroups under %s: neither cgroup v2 with %s delegated in cgroup.subtree_control nor a cgroup v1 memory controller",
		root, strings.Join(v2Controllers, ", "))
}

func containsAll(list, want []string) bool {
	for _, w := range want {
		if !contains(list, w) {
			return false
		}
	}
	return true
}

// cgroupName turns a task ID into a single path element.
func cgroupName(taskID string) string {
	r := strings.NewReplacer("/", "_", "..", "_", " ", "_")
	return r.Replace(taskID)
}

// setup creates the cgroups of task taskID with its limits and returns
// their paths (v1: one per controller, memory first; v2: one). On error
// nothing is left behind.
func (l cgroupLayout) setup(taskID string, res base.Resources, pidsLimit int64) ([]string, error) {
	if l.V2 {
		p, err := setupV2(l.Root, cgroupName(taskID), res, pidsLimit)
		if err != nil {
			return nil, err
		}
		return []string{p}, nil
	}
	return setupV1(l.Root, cgroupName(taskID), res, pidsLimit)
}

// memoryLimits returns the hard limit (memory_max when above memory, else
// memory) and the soft one (memory when memory_max is set, else 0), in
// bytes; hard 0 means no limit.
func memoryLimits(res base.Resources) (hard, soft int64) {
	if res.MemoryMaxMB > res.MemoryMB {
		return res.MemoryMaxMB << 20, res.MemoryMB << 20
	}
	return res.MemoryMB << 20, 0
}

func writeCg(dir, file string, v int64) error {
	return writeCgString(dir, file, strconv.FormatInt(v, 10))
}

func writeCgString(dir, file, v string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(v), 0o644); err != nil {
		return fmt.Errorf("setting %s: %w", file, err)
	}
	return nil
}

func readCgString(dir, file string) string {
	b, _ := os.ReadFile(filepath.Join(dir, file))
	return strings.TrimSpace(string(b))
}

// updateCgroups writes res into the task's cgroups (the paths setup
// returned): memory, cpu weight and, when res has cores, the cpuset.
func updateCgroups(paths []string, v2 bool, res base.Resources) error {
	if v2 {
		for _, p := range paths {
			if err := applyV2(p, res); err != nil {
				return err
			}
		}
		return nil
	}
	for _, p := range paths {
		if err := applyV1(p, res); err != nil {
			return err
		}
	}
	return nil
}

// oomKilled reports whether the kernel OOM-killed a process in the task's
// memory cgroup (v1 memory.oom_control or v2 memory.events, oom_kill).
func oomKilled(paths []string) bool {
	for _, p := range paths {
		for _, f := range []string{"memory.oom_control", "memory.events"} {
			if n, ok := cgStatValue(p, f, "oom_kill"); ok {
				return n > 0
			}
		}
	}
	return false
}

// cgStatValue reads key from a flat keyed file ("key value" lines).
func cgStatValue(dir, file, key string) (int64, bool) {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key+" "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// cgroupEmptyTimeout bounds how long removeCgroups waits for killed
// processes to leave.
const cgroupEmptyTimeout = 5 * time.Second

// removeCgroups removes the task's cgroups, SIGKILLing what is left in
// them and waiting (bounded) for those processes to be gone.
func removeCgroups(paths []string) {
	deadline := time.Now().Add(cgroupEmptyTimeout)
	for _, p := range paths {
		for {
			for _, pid := range cgroupPids(p) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			err := os.Remove(p)
			if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// cgroupPids lists the processes in a cgroup (host pids).
func cgroupPids(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}
