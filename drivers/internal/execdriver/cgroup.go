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
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// cgroupRoot is where cgroup v1 controllers are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupParent is the directory under each controller holding one cgroup
// per task ID, so several clients on one host never collide.
const cgroupParent = "nomadish"

// cgroupsAvailable reports whether cgroup v1 memory limits can be set.
func cgroupsAvailable() bool {
	if os.Geteuid() != 0 {
		return false
	}
	_, err := os.Stat(filepath.Join(cgroupRoot, "memory", "memory.limit_in_bytes"))
	return err == nil
}

// cgroupName turns a task ID into a single path element.
func cgroupName(taskID string) string {
	r := strings.NewReplacer("/", "_", "..", "_", " ", "_")
	return r.Replace(taskID)
}

// setupCgroups creates the task's memory and cpu cgroups with its limits
// and returns their paths. Memory limit is MemoryMaxMB when set (soft limit
// MemoryMB), else MemoryMB; cpu.shares is CPUShares.
func setupCgroups(taskID string, res base.Resources) ([]string, error) {
	name := cgroupName(taskID)
	mem := filepath.Join(cgroupRoot, "memory", cgroupParent, name)
	cpu := filepath.Join(cgroupRoot, "cpu", cgroupParent, name)
	paths := []string{mem}
	if err := os.MkdirAll(mem, 0o755); err != nil {
		return nil, fmt.Errorf("creating memory cgroup: %w", err)
	}
	hard, soft := res.MemoryMB, int64(0)
	if res.MemoryMaxMB > res.MemoryMB {
		hard, soft = res.MemoryMaxMB, res.MemoryMB
	}
	if hard > 0 {
		if err := writeCg(mem, "memory.limit_in_bytes", hard<<20); err != nil {
			removeCgroups(paths)
			return nil, err
		}
	}
	if soft > 0 {
		_ = writeCg(mem, "memory.soft_limit_in_bytes", soft<<20)
	}
	if _, err := os.Stat(filepath.Join(cgroupRoot, "cpu", "cpu.shares")); err == nil {
		if err := os.MkdirAll(cpu, 0o755); err == nil {
			paths = append(paths, cpu)
			if res.CPUShares > 0 {
				_ = writeCg(cpu, "cpu.shares", max(res.CPUShares, 2))
			}
		}
	}
	return paths, nil
}

func writeCg(dir, file string, v int64) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(v, 10)), 0o644); err != nil {
		return fmt.Errorf("setting %s: %w", file, err)
	}
	return nil
}

// startInCgroups starts cmd so that the child is born inside the cgroups:
// cgroup v1 membership is per thread, so the goroutine locks its OS thread,
// moves that thread into the task's cgroups, forks from it, and moves the
// thread back where it was. If moving back fails the thread stays locked and
// the Go runtime ends it with the goroutine (unless it is the main thread,
// which the runtime keeps: then the error is returned for logging).
func startInCgroups(cmd *exec.Cmd, paths []string) (startErr, restoreErr error) {
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
		if err := moveThread(tid, paths); err != nil {
			r.start = err
		} else {
			r.start = cmd.Start()
		}
		if r.restore = moveThread(tid, orig); r.restore == nil {
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
		ctrl := strings.SplitN(strings.TrimPrefix(p, cgroupRoot+"/"), "/", 2)[0]
		found := ""
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.SplitN(line, ":", 3) // id:controllers:path
			if len(f) == 3 && contains(strings.Split(f[1], ","), ctrl) {
				found = filepath.Join(cgroupRoot, ctrl, f[2])
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

// oomKilled reports whether the kernel OOM-killed a process in the task's
// memory cgroup.
func oomKilled(paths []string) bool {
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(p, "memory.oom_control"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "oom_kill "); ok {
				n, _ := strconv.Atoi(strings.TrimSpace(rest))
				return n > 0
			}
		}
	}
	return false
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
			pids := cgroupPids(p)
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			err := os.Remove(p)
			if err == nil || os.IsNotExist(err) || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// cgroupPids lists the processes in a cgroup.
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
