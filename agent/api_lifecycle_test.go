package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientLifecycleFields registers a job as JSON through Nomad's
// Go client: the lifecycle, the task's restart policy (merged over the
// group's) and the shutdown delays come back; an unknown hook is a 400
// naming the group and task, and registers nothing.
func TestOfficialClientLifecycleFields(t *testing.T) {
	_, c := devAgent(t)
	job := api.NewServiceJob("lc", "lc", "global", 50)
	job.Datacenters = []string{"nowhere"} // stored, not placed
	init := api.NewTask("init", "raw_exec").SetConfig("command", "/bin/true")
	init.Lifecycle = &api.TaskLifecycle{Hook: "prestart", Sidecar: true}
	init.RestartPolicy = &api.RestartPolicy{Attempts: new(7)}
	delay := 3 * time.Second
	main := api.NewTask("main", "raw_exec").SetConfig("command", "/bin/true")
	main.ShutdownDelay = 2 * time.Second
	tg := api.NewTaskGroup("g", 1).AddTask(init).AddTask(main)
	tg.ShutdownDelay = &delay
	tg.RestartPolicy = &api.RestartPolicy{Attempts: new(4), Delay: new(9 * time.Second), Interval: new(time.Hour), Mode: new("delay")}
	job.AddTaskGroup(tg)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := c.Jobs().Info("lc", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := got.TaskGroups[0]
	if g.ShutdownDelay == nil || *g.ShutdownDelay != delay {
		t.Errorf("group ShutdownDelay %v", g.ShutdownDelay)
	}
	ti, tm := g.Tasks[0], g.Tasks[1]
	if ti.Lifecycle == nil || ti.Lifecycle.Hook != "prestart" || !ti.Lifecycle.Sidecar {
		t.Errorf("init Lifecycle %+v", ti.Lifecycle)
	}
	if rp := ti.RestartPolicy; rp == nil || *rp.Attempts != 7 || *rp.Delay != 9*time.Second || *rp.Mode != "delay" {
		t.Errorf("init RestartPolicy %+v", rp)
	}
	if tm.ShutdownDelay != 2*time.Second || tm.Lifecycle != nil || tm.RestartPolicy == nil || *tm.RestartPolicy.Attempts != 4 {
		t.Errorf("main %+v", tm)
	}

	bad := api.NewServiceJob("lc-bad", "lc-bad", "global", 50)
	bt := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")
	bt.Lifecycle = &api.TaskLifecycle{Hook: "prestrat"}
	bad.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(bt))
	_, _, err = c.Jobs().Register(bad, nil)
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), `group "g": task "t": lifecycle`) {
		t.Fatalf("bad hook: %v", err)
	}
	if _, _, err := c.Jobs().Info("lc-bad", nil); err == nil {
		t.Fatal("the bad job was registered")
	}
}
