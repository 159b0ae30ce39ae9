package execdriver

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
	"github.com/nomadish/nomadish/drivers/internal/handlefile"
)

// allocTask is a task config laid out as the client does it:
// <root>/<alloc>/{alloc,web}, with the client's NOMAD_* identity vars.
func allocTask(t *testing.T, id, script string) *base.TaskConfig {
	t.Helper()
	root := filepath.Join(t.TempDir(), "a1")
	for _, d := range []string{"alloc/logs", "web"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &base.TaskConfig{
		ID: "a1/web/" + id, Name: "web", AllocID: "a1",
		Env:      map[string]string{"PATH": os.Getenv("PATH"), "NOMAD_ALLOC_ID": "a1", "NOMAD_TASK_NAME": "web"},
		Config:   map[string]any{"command": "/bin/sh", "args": []any{"-c", script}},
		AllocDir: filepath.Join(root, "alloc"), TaskDir: filepath.Join(root, "web"),
		StdoutPath: filepath.Join(root, "alloc", "logs", "web.stdout"),
	}
}

// TestDiscoverTask: a driver that never saw the task (a new plugin of a
// client that lost its state) finds it by its handle file, under its
// original ID and pid, and no longer once it exited or was destroyed.
func TestDiscoverTask(t *testing.T) {
	a := newDriver(t)
	cfg := allocTask(t, "first001", `echo up; while [ ! -e go ]; do sleep 0.02; done`)
	h, err := a.StartTask(cfg)
	if err != nil {
		t.Fatal(err)
	}
	waitForLog(t, cfg.StdoutPath, "up")
	ta, _ := a.tasks.Get(cfg.ID)
	ta.closePumps()

	b := newDriver(t)
	fresh := *cfg
	fresh.ID = "a1/web/second02" // the ID a new start would have used
	got, err := b.DiscoverTask(&fresh)
	if err != nil {
		t.Fatalf("DiscoverTask: %v", err)
	}
	if got.Config.ID != cfg.ID || string(got.DriverState) != string(h.DriverState) {
		t.Fatalf("discovered %s %s, want %s %s", got.Config.ID, got.DriverState, cfg.ID, h.DriverState)
	}
	st, err := b.InspectTask(cfg.ID)
	if err != nil || st.State != base.TaskStateRunning || st.DriverAttributes["pid"] != strconv.Itoa(ta.state.Pid) {
		t.Fatalf("inspect = %+v, %v", st, err)
	}
	// Another task of the alloc, or another driver's, finds nothing.
	other := fresh
	other.Name = "db"
	if _, err := b.DiscoverTask(&other); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("other task: %v", err)
	}
	if _, err := New(Options{Name: "exec"}).DiscoverTask(&fresh); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("other driver: %v", err)
	}

	os.WriteFile(filepath.Join(cfg.TaskDir, "go"), nil, 0o644)
	drivertest.WaitExit(t, b, cfg.ID, 10*time.Second)
	if _, err := newDriver(t).DiscoverTask(&fresh); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("exited task: %v", err)
	}
	if err := b.DestroyTask(cfg.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(handlefile.Path("raw_exec", cfg)); !os.IsNotExist(err) {
		t.Fatalf("handle file left after DestroyTask: %v", err)
	}
}

// TestDiscoverRefusesForgedHandle: a handle file naming a live process that
// is not the task (here the test process itself, with its real start time)
// or another task's ID is not adopted: adopting it would let the client
// signal a process that is not its task.
func TestDiscoverRefusesForgedHandle(t *testing.T) {
	cfg := allocTask(t, "x", "true")
	self := os.Getpid()
	ticks, err := ProcStartTicks(self)
	if err != nil {
		t.Fatal(err)
	}
	state, _ := json.Marshal(driverState{Pid: self, StartTicks: ticks})
	for name, id := range map[string]string{"live process not the task": cfg.ID, "another task's ID": "a2/web/x"} {
		if err := handlefile.Write("raw_exec", &base.TaskConfig{ID: id, Name: cfg.Name, TaskDir: cfg.TaskDir}, state); err != nil {
			t.Fatal(err)
		}
		if _, err := newDriver(t).DiscoverTask(cfg); !errors.Is(err, base.ErrTaskNotFound) {
			t.Fatalf("%s: DiscoverTask = %v, want ErrTaskNotFound", name, err)
		}
	}
	os.WriteFile(handlefile.Path("raw_exec", cfg), []byte("{not json"), 0o600)
	if _, err := newDriver(t).DiscoverTask(cfg); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("garbage handle file: %v", err)
	}
}
