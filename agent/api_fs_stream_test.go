package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientFSStream follows a growing file of a running task
// through AllocFS().Stream (GET /v1/client/fs/stream): frames keep coming
// as the task appends, from the offset asked, until the client cancels.
func TestOfficialClientFSStream(t *testing.T) {
	_, c := devAgent(t)
	job := api.NewServiceJob("grow", "grow", "global", 50)
	job.Datacenters = []string{"dc1"}
	script := `i=0; while true; do i=$((i+1)); echo "line-$i" >> "$NOMAD_TASK_DIR/out.txt"; sleep 0.1; done`
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", script})
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	alloc := runningAlloc(t, c, "grow", "")
	path := "t/local/out.txt"
	waitFor(t, 10*time.Second, "the file", func() error {
		_, _, err := c.AllocFS().Stat(alloc, path, nil)
		return err
	})

	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := c.AllocFS().Stream(alloc, path, "start", 0, cancel, nil)
	var got strings.Builder
	deadline := time.After(15 * time.Second)
	for !strings.Contains(got.String(), "line-20\n") {
		select {
		case f, ok := <-frames:
			if !ok {
				t.Fatalf("stream ended early after %q", got.String())
			}
			if f.File != path {
				t.Fatalf("frame of %q", f.File)
			}
			got.Write(f.Data)
		case err := <-errs:
			t.Fatalf("stream: %v", err)
		case <-deadline:
			t.Fatalf("no line-20 in %q", got.String())
		}
	}
	if !strings.HasPrefix(got.String(), "line-1\nline-2\n") {
		t.Fatalf("stream did not start at the beginning: %q", got.String()[:min(40, got.Len())])
	}

	// A missing file is a 404 and a bad origin a 400 (through the raw API).
	for _, tc := range []struct{ q, want string }{
		{"path=t/local/nope", "404"}, {"path=" + path + "&origin=middle", "400"},
	} {
		_, err := c.Raw().Response("/v1/client/fs/stream/"+alloc.ID+"?"+tc.q, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", tc.q, err, tc.want)
		}
	}

}
