package taskrunner_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/client/template/templatetest"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// execDriver is the fake driver with exec: each command exits with code.
type execDriver struct {
	*clienttest.FakeDriver
	code int
	mu   sync.Mutex
	ran  []string
}

func (d *execDriver) Capabilities() (*base.Capabilities, error) {
	c, err := d.FakeDriver.Capabilities()
	c.Exec = true
	return c, err
}

func (d *execDriver) ExecTaskStreaming(_ context.Context, id string, opts *base.ExecOptions) (*base.ExitResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ran = append(d.ran, id+": "+strings.Join(opts.Command, " "))
	return &base.ExitResult{ExitCode: d.code}, nil
}

// TestTemplateChangeScript: change_mode script runs the script in the
// running task through the driver's exec; a failure with fail_on_error
// kills the task and fails it, without it the task keeps running.
func TestTemplateChangeScript(t *testing.T) {
	for _, tc := range []struct {
		code        int
		failOnError bool
		event       string
		dead        bool
	}{
		{0, true, "Template ran script /bin/reload with arguments [-q] on change", false},
		{3, false, "Template failed to run script /bin/reload with arguments [-q] on change: exit code 3", false},
		{3, true, "Template failed to run script /bin/reload with arguments [-q] on change: exit code 3", true},
	} {
		synctest.Test(t, func(t *testing.T) {
			vars := templatetest.NewVars()
			vars.Put("nomad/jobs/example", map[string]string{"v": "1"})
			drv := &execDriver{FakeDriver: clienttest.NewFakeDriver(), code: tc.code}
			task := &structs.Task{Name: "web", Driver: "mock", Templates: []*structs.Template{{DestPath: "local/a", ChangeMode: "script",
				Splay:        time.Nanosecond,
				ChangeScript: &structs.ChangeScript{Command: "/bin/reload", Args: []string{"-q"}, Timeout: time.Second, FailOnError: tc.failOnError},
				EmbeddedTmpl: `{{ with nomadVar "nomad/jobs/example" }}{{ .v }}{{ end }}`}}}
			tr := newRunnerWith(t, testAlloc(structs.JobTypeService, task, nil), drv, func(c *taskrunner.Config) { c.Vars = vars })
			go tr.Run()
			synctest.Wait()
			id := tr.Handle().Config.ID
			vars.Put("nomad/jobs/example", map[string]string{"v": "2"})
			time.Sleep(time.Second)
			synctest.Wait()
			if len(drv.ran) != 1 || drv.ran[0] != id+": /bin/reload -q" {
				t.Fatalf("exec calls %v", drv.ran)
			}
			s := tr.State()
			if !hasDisplay(s, tc.event) {
				t.Fatalf("events: %s", eventTypes(s))
			}
			if dead := s.State == structs.TaskStateDead; dead != tc.dead || s.Failed != tc.dead {
				t.Fatalf("state %s failed=%v, want dead=%v", s.State, s.Failed, tc.dead)
			}
			tr.Kill()
			<-tr.WaitCh()
		})
	}
}

func hasDisplay(s *structs.TaskState, msg string) bool {
	for _, e := range s.Events {
		if e.DisplayMessage == msg {
			return true
		}
	}
	return false
}
