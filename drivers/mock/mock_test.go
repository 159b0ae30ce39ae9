package mock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

func waitResult(t *testing.T, d base.Driver, id string) *base.ExitResult {
	t.Helper()
	ch, err := d.WaitTask(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return <-ch
}

func TestRunForExitCodeAndLogs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := New(nil)
		dir := t.TempDir()
		cfg := &base.TaskConfig{ID: "t1", Name: "web", StdoutPath: filepath.Join(dir, "web.stdout"),
			Config: map[string]any{"run_for": "10s", "exit_code": int64(2), "stdout_string": "hello"}}
		start := time.Now()
		if _, err := d.StartTask(cfg); err != nil {
			t.Fatal(err)
		}
		res := waitResult(t, d, "t1")
		if res.ExitCode != 2 || time.Since(start) != 10*time.Second {
			t.Fatalf("result %+v after %v", res, time.Since(start))
		}
		if b, _ := os.ReadFile(cfg.StdoutPath + ".0"); string(b) != "hello" {
			t.Fatalf("stdout = %q", b)
		}
		st, _ := d.InspectTask("t1")
		if st.State != base.TaskStateExited {
			t.Fatalf("state %v", st.State)
		}
		if err := d.DestroyTask("t1", false); err != nil {
			t.Fatal(err)
		}
	})
}

func TestStopKillAfterAndTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := New(nil)
		d.StartTask(&base.TaskConfig{ID: "a", Config: map[string]any{"kill_after": "3s"}})
		start := time.Now()
		if err := d.StopTask("a", 10*time.Second, "SIGINT"); err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el != 3*time.Second {
			t.Fatalf("stop took %v, want kill_after 3s", el)
		}
		if res := waitResult(t, d, "a"); res.Signal != 2 {
			t.Fatalf("result %+v, want SIGINT", res)
		}
		d.StartTask(&base.TaskConfig{ID: "b", Config: map[string]any{"kill_after": "1m"}})
		start = time.Now()
		d.StopTask("b", 5*time.Second, "")
		if el := time.Since(start); el != 5*time.Second {
			t.Fatalf("stop took %v, want the 5s timeout", el)
		}
		if res := waitResult(t, d, "b"); res.Signal != 9 {
			t.Fatalf("result %+v, want SIGKILL", res)
		}
	})
}

func TestErrorsAndRecover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := New(nil)
		if _, err := d.StartTask(&base.TaskConfig{ID: "x", Config: map[string]any{"start_error": "boom"}}); err == nil || err.Error() != "boom" {
			t.Fatalf("start_error: %v", err)
		}
		if _, err := d.StartTask(&base.TaskConfig{ID: "x", Config: map[string]any{"run_for": 5}}); err == nil {
			t.Fatal("want error for non-string run_for")
		}
		h, err := d.StartTask(&base.TaskConfig{ID: "r", Config: map[string]any{"run_for": "1m"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.StartTask(h.Config); !errors.Is(err, base.ErrTaskExists) {
			t.Fatalf("duplicate: %v", err)
		}
		if err := d.DestroyTask("r", false); !errors.Is(err, base.ErrTaskRunning) {
			t.Fatalf("destroy running: %v", err)
		}
		time.Sleep(20 * time.Second) // fake time: a "restart" 20s in
		d2 := New(nil)
		if err := d2.RecoverTask(h); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if res := waitResult(t, d2, "r"); !res.Successful() || time.Since(start) != 40*time.Second {
			t.Fatalf("recovered %+v after %v, want the remaining 40s", res, time.Since(start))
		}
		d.DestroyTask("r", true)
		if _, err := d.InspectTask("r"); !errors.Is(err, base.ErrTaskNotFound) {
			t.Fatalf("after destroy: %v", err)
		}
	})
}

func TestStatsStopWithTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := New(nil)
		d.StartTask(&base.TaskConfig{ID: "s", Config: map[string]any{"run_for": "1s"}})
		ch, err := d.TaskStats(context.Background(), "s", 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for range ch {
			n++
		}
		if n < 10 || n > 11 {
			t.Fatalf("got %d samples over 1s at 100ms", n)
		}
	})
}
