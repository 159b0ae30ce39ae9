package mock

import (
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

func TestUpdateTaskRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := New(nil).(*Driver)
		if c, _ := d.Capabilities(); !c.UpdateResources {
			t.Fatal("mock does not report UpdateResources")
		}
		cfg := &base.TaskConfig{ID: "t1", Name: "web", StdoutPath: filepath.Join(t.TempDir(), "web.stdout"),
			Config: map[string]any{"run_for": "10s"}}
		if _, err := d.StartTask(cfg); err != nil {
			t.Fatal(err)
		}
		if err := d.UpdateTask("t1", &base.Resources{CPUShares: 200, MemoryMB: 96}); err != nil {
			t.Fatal(err)
		}
		if got := d.Updates("t1"); len(got) != 1 || got[0].MemoryMB != 96 || got[0].CPUShares != 200 {
			t.Fatalf("updates = %+v", got)
		}
		if err := d.UpdateTask("nope", &base.Resources{}); !errors.Is(err, base.ErrTaskNotFound) {
			t.Fatalf("unknown task: %v", err)
		}
		if err := d.StopTask("t1", time.Second, ""); err != nil {
			t.Fatal(err)
		}
	})
}
