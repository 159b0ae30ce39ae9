package execdriver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/netns"
)

// setupV1 creates <root>/<controller>/nomadish/<name> for memory, cpu and
// pids (when mounted), and cpuset when res has cores, writes the limits and
// returns the paths, memory first.
func setupV1(root, name string, res base.Resources, pidsLimit int64) ([]string, error) {
	var paths []string
	fail := func(err error) ([]string, error) {
		removeCgroups(paths)
		return nil, err
	}
	for _, ctrl := range []string{"memory", "cpu", "pids", "cpuset"} {
		if ctrl != "memory" {
			if _, err := os.Stat(filepath.Join(root, ctrl, "cgroup.procs")); err != nil {
				continue // controller not mounted
			}
		}
		if ctrl == "cpuset" && len(res.Cores) == 0 {
			continue
		}
		parent := filepath.Join(root, ctrl, cgroupParent)
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return fail(fmt.Errorf("creating %s cgroup: %w", ctrl, err))
		}
		if ctrl == "cpuset" {
			if err := inheritCpuset(filepath.Join(root, ctrl), parent); err != nil {
				return fail(err)
			}
		}
		p := filepath.Join(parent, name)
		if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fail(fmt.Errorf("creating %s cgroup: %w", ctrl, err))
		}
		paths = append(paths, p)
		var err error
		switch ctrl {
		case "pids":
			if pidsLimit > 0 {
				err = writeCg(p, "pids.max", pidsLimit)
			}
		case "cpuset":
			err = writeCgString(p, "cpuset.mems", cpusetMems(res, readCgString(parent, "cpuset.mems")))
		}
		if err == nil {
			err = applyV1(p, res)
		}
		if err != nil {
			return fail(err)
		}
	}
	return paths, nil
}

// inheritCpuset gives a new v1 cpuset dir the cpus and mems of its parent
// when it has none: a cpuset cgroup without both cannot take tasks.
func inheritCpuset(parent, dir string) error {
	for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
		if readCgString(dir, f) != "" {
			continue
		}
		if err := writeCgString(dir, f, readCgString(parent, f)); err != nil {
			return err
		}
	}
	return nil
}

// cpusetMems is the task's memory nodes: its NUMA nodes, else all of the
// parent's.
func cpusetMems(res base.Resources, parentMems string) string {
	if len(res.NUMANodes) > 0 {
		return base.IDList(res.NUMANodes)
	}
	return parentMems
}

// applyV1 writes res into one v1 cgroup of the task; the controller is the
// path element above "nomadish". Memory: limit_in_bytes is the hard limit,
// soft_limit_in_bytes memory when memory_max is set, else -1 (none).
func applyV1(p string, res base.Resources) error {
	switch filepath.Base(filepath.Dir(filepath.Dir(p))) {
	case "memory":
		hard, soft := memoryLimits(res)
		if hard <= 0 {
			return nil
		}
		if soft == 0 {
			soft = -1
		}
		if err := writeCg(p, "memory.limit_in_bytes", hard); err != nil {
			return err
		}
		return writeCg(p, "memory.soft_limit_in_bytes", soft)
	case "cpu":
		if res.CPUShares > 0 {
			return writeCg(p, "cpu.shares", max(res.CPUShares, 2))
		}
	case "cpuset":
		if len(res.Cores) > 0 {
			return writeCgString(p, "cpuset.cpus", res.CoreList())
		}
	}
	return nil
}

// startInCgroups starts cmd so that the child is born inside the v1
// cgroups: membership is per thread, so the goroutine locks its OS thread,
// moves that thread into the task's cgroups, forks from it, and moves the
// thread back where it was. If moving back fails the thread stays locked and
// the Go runtime ends it with the goroutine (unless it is the main thread,
// which the runtime keeps: then the error is returned for logging).
// A non-empty netnsPath is the network namespace the child is born in
// (the same thread joins it, netns.Enter).
func startInCgroups(cmd *exec.Cmd, paths []string, netnsPath string) (startErr, restoreErr error) {
	type result struct{ start, restore error }
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		tid := syscall.Gettid()
		orig, err := threadCgroups(tid, paths)
		if err != nil {
			runtime.UnlockOSThread()
			done <- result{start: err}
			return
		}
		var r result
		restoreNet, err := netns.Enter(netnsPath)
		if err != nil {
			r.start = err
		} else if err := moveThread(tid, paths); err != nil {
			r.start = err
		} else {
			r.start = cmd.Start()
		}
		r.restore = moveThread(tid, orig)
		if !restoreNet() && r.restore == nil {
			r.restore = errors.New("leaving the task's network namespace failed")
		}
		if r.restore == nil {
			runtime.UnlockOSThread()
		}
		done <- r
	}()
	r := <-done
	return r.start, r.restore
}

// threadCgroups returns, for each task cgroup path, the cgroup of the same
// controller that thread tid is in now.
func threadCgroups(tid int, paths []string) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/cgroup", os.Getpid(), tid))
	if err != nil {
		return nil, fmt.Errorf("reading thread cgroups: %w", err)
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		ctrl := filepath.Base(filepath.Dir(filepath.Dir(p)))
		found := ""
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.SplitN(line, ":", 3) // id:controllers:path
			if len(f) == 3 && contains(strings.Split(f[1], ","), ctrl) {
				found = filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(p))), ctrl, f[2])
			}
		}
		if found == "" {
			return nil, fmt.Errorf("thread has no %s cgroup", ctrl)
		}
		out = append(out, found)
	}
	return out, nil
}

func moveThread(tid int, paths []string) error {
	for _, p := range paths {
		if err := os.WriteFile(filepath.Join(p, "tasks"), []byte(strconv.Itoa(tid)), 0o644); err != nil {
			return fmt.Errorf("moving thread into cgroup %s: %w", p, err)
		}
	}
	return nil
}

// joinCgroups moves pid into every cgroup (a check after startInCgroups).
func joinCgroups(paths []string, pid int) error {
	var errs []error
	for _, p := range paths {
		err := os.WriteFile(filepath.Join(p, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644)
		if err != nil {
			errs = append(errs, fmt.Errorf("joining cgroup %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}
