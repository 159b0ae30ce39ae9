package execdriver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// requireIsolation fails (not skips) when the host cannot isolate: these
// tests run as root on a host with cgroups, and a gap must be seen.
func requireIsolation(t *testing.T) *isolation {
	t.Helper()
	iso, err := checkIsolation()
	if err != nil {
		t.Fatalf("exec isolation unavailable (run as root on Linux with cgroups): %v", err)
	}
	return iso
}

// execTask returns a task config running script under /bin/sh with a
// client-like layout: <root>/alloc/{data,tmp,logs} and
// <root>/web/{local,secrets,tmp}, under a 0700 temp dir as in dev mode.
func execTask(t *testing.T, script string) *base.TaskConfig {
	t.Helper()
	root := t.TempDir()
	alloc, task := filepath.Join(root, "alloc"), filepath.Join(root, "web")
	for _, d := range []string{"data", "tmp", "logs"} {
		os.MkdirAll(filepath.Join(alloc, d), 0o755)
	}
	for _, d := range []string{"local", "secrets", "tmp"} {
		os.MkdirAll(filepath.Join(task, d), 0o755)
	}
	return &base.TaskConfig{
		ID: fmt.Sprintf("alloc1/web/%s-%d", t.Name(), time.Now().UnixNano()), Name: "web", AllocID: "alloc1",
		Env: map[string]string{"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "NOMAD_ALLOC_DIR": alloc,
			"NOMAD_SECRETS_DIR": filepath.Join(task, "secrets"), "NOMAD_TASK_DIR": filepath.Join(task, "local")},
		Config:   map[string]any{"command": "/bin/sh", "args": []any{"-c", script}},
		AllocDir: alloc, TaskDir: task,
		StdoutPath: filepath.Join(alloc, "logs", "web.stdout"), StderrPath: filepath.Join(alloc, "logs", "web.stderr"),
	}
}

func newExecDriver() *Driver {
	return New(Options{Name: "exec", EnabledByDefault: true, Isolate: true})
}

// The exec driver puts the task into memory/cpu/pids cgroups named by task
// ID and removes them on destroy.
func TestExecCgroups(t *testing.T) {
	iso := requireIsolation(t)
	d := newExecDriver()
	cfg := execTask(t, `echo ready; while :; do sleep 0.05; done`)
	cfg.Resources.MemoryMB = 64
	cfg.Resources.CPUShares = 500
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, cfg.StdoutPath, "ready")
	tk, _ := d.tasks.Get(cfg.ID)
	if iso.cgroups.V2 {
		t.Skip("host uses cgroup v2: the v1 paths below do not apply") // not this machine
	}
	mem := filepath.Join(cgroupRoot, "memory", cgroupParent, cgroupName(cfg.ID))
	if len(tk.state.Cgroups) == 0 || tk.state.Cgroups[0] != mem {
		t.Fatalf("cgroups = %v, want %s first", tk.state.Cgroups, mem)
	}
	if b, _ := os.ReadFile(filepath.Join(mem, "memory.limit_in_bytes")); strings.TrimSpace(string(b)) != "67108864" {
		t.Errorf("memory limit = %q", b)
	}
	for _, p := range tk.state.Cgroups {
		if pids := cgroupPids(p); len(pids) < 2 { // the init and sh (and sleep)
			t.Errorf("cgroup %s has processes %v, want the init and the task", p, pids)
		}
	}
	if err := d.StopTask(cfg.ID, time.Second, ""); err != nil {
		t.Fatal(err)
	}
	if err := d.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
	for _, p := range tk.state.Cgroups {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("cgroup %s not removed: %v", p, err)
		}
	}
}
