package execdriver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The exec driver puts the task into memory/cpu cgroups named by task ID
// and removes them on destroy. Needs root and cgroup v1 (this host has both;
// the test fails rather than skips if that changes, so the gap is seen).
func TestExecCgroups(t *testing.T) {
	if !cgroupsAvailable() {
		t.Fatal("cgroup v1 memory controller not usable: run as root on a host with /sys/fs/cgroup/memory")
	}
	d := New(Options{Name: "exec", EnabledByDefault: true, Cgroups: true})
	cfg := shTask(t, `echo ready; while :; do sleep 0.05; done`)
	cfg.ID = "alloc1/web/" + t.Name()
	cfg.Resources.MemoryMB = 64
	cfg.Resources.CPUShares = 500
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, cfg.StdoutPath, "ready")
	tk, _ := d.task(cfg.ID)
	mem := filepath.Join(cgroupRoot, "memory", cgroupParent, cgroupName(cfg.ID))
	if len(tk.state.Cgroups) == 0 || tk.state.Cgroups[0] != mem {
		t.Fatalf("cgroups = %v, want %s first", tk.state.Cgroups, mem)
	}
	if b, _ := os.ReadFile(filepath.Join(mem, "memory.limit_in_bytes")); strings.TrimSpace(string(b)) != "67108864" {
		t.Errorf("memory limit = %q", b)
	}
	if pids := cgroupPids(mem); len(pids) == 0 {
		t.Error("task is not in its memory cgroup")
	}
	if err := d.StopTask(cfg.ID, time.Second, ""); err != nil {
		t.Fatal(err)
	}
	if err := d.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mem); !os.IsNotExist(err) {
		t.Errorf("cgroup %s not removed: %v", mem, err)
	}
}

// A task over its memory limit is OOM-killed and the result says so.
func TestExecOOMKilled(t *testing.T) {
	if !cgroupsAvailable() {
		t.Fatal("cgroup v1 memory controller not usable")
	}
	d := New(Options{Name: "exec", EnabledByDefault: true, Cgroups: true})
	cfg := shTask(t, `head -c 200000000 /dev/zero | tail -n 1 >/dev/null`)
	cfg.Resources.MemoryMB = 16
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	defer d.DestroyTask(cfg.ID, true)
	res := wait(t, d, cfg.ID, 20*time.Second)
	if !res.OOMKilled || res.Successful() {
		t.Fatalf("result = %+v, want OOMKilled", res)
	}
}
