package execdriver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

func readCg(t *testing.T, dir, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// UpdateTask changes the memory limit and cpu shares of a running exec
// task's cgroups; the task keeps running. Needs root and cgroup v1, like
// TestExecCgroups.
func TestExecUpdateTaskCgroups(t *testing.T) {
	if iso := requireIsolation(t); iso.cgroups.V2 {
		t.Skip("host uses cgroup v2; TestApplyV2 covers it")
	}
	d := newExecDriver()
	if c, _ := d.Capabilities(); !c.UpdateResources {
		t.Fatal("exec does not report UpdateResources")
	}
	cfg := execTask(t, `echo ready; while :; do sleep 0.05; done`)
	cfg.Resources.MemoryMB = 64
	cfg.Resources.CPUShares = 500
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	waitForLog(t, cfg.StdoutPath, "ready")
	mem := filepath.Join(cgroupRoot, "memory", cgroupParent, cgroupName(cfg.ID))
	cpu := filepath.Join(cgroupRoot, "cpu", cgroupParent, cgroupName(cfg.ID))
	if got := readCg(t, mem, "memory.limit_in_bytes"); got != "67108864" {
		t.Fatalf("memory limit before = %s", got)
	}

	if err := d.UpdateTask(cfg.ID, &base.Resources{CPUShares: 800, MemoryMB: 96}); err != nil {
		t.Fatal(err)
	}
	if got := readCg(t, mem, "memory.limit_in_bytes"); got != "100663296" {
		t.Errorf("memory limit after = %s, want 96 MiB", got)
	}
	if got := readCg(t, cpu, "cpu.shares"); got != "800" {
		t.Errorf("cpu.shares after = %s", got)
	}
	// memory_max: the hard limit, memory the soft one.
	if err := d.UpdateTask(cfg.ID, &base.Resources{CPUShares: 800, MemoryMB: 96, MemoryMaxMB: 128}); err != nil {
		t.Fatal(err)
	}
	if hard, soft := readCg(t, mem, "memory.limit_in_bytes"), readCg(t, mem, "memory.soft_limit_in_bytes"); hard != "134217728" || soft != "100663296" {
		t.Errorf("with memory_max: hard %s soft %s", hard, soft)
	}
	if st, err := d.InspectTask(cfg.ID); err != nil || st.State != base.TaskStateRunning {
		t.Fatalf("task after update: %+v, %v", st, err)
	}
	if err := d.UpdateTask("nope", &base.Resources{MemoryMB: 1}); !errors.Is(err, base.ErrTaskNotFound) {
		t.Errorf("unknown task: %v", err)
	}
	if err := d.StopTask(cfg.ID, time.Second, ""); err != nil {
		t.Fatal(err)
	}
}

// raw_exec enforces no limits: UpdateTask accepts new ones as a no-op.
func TestRawExecUpdateTaskNoOp(t *testing.T) {
	d := New(Options{Name: "raw_exec", EnabledByDefault: true})
	cfg := shTask(t, `echo ready; while :; do sleep 0.05; done`)
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	waitForLog(t, cfg.StdoutPath, "ready")
	if err := d.UpdateTask(cfg.ID, &base.Resources{CPUShares: 800, MemoryMB: 96}); err != nil {
		t.Fatal(err)
	}
	if st, err := d.InspectTask(cfg.ID); err != nil || st.State != base.TaskStateRunning {
		t.Fatalf("task after update: %+v, %v", st, err)
	}
}
