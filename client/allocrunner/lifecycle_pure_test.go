package allocrunner

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func st(state string, failed, started bool) *structs.TaskState {
	s := &structs.TaskState{State: state, Failed: failed}
	if started {
		s.StartedAt = time.Unix(1, 0)
	}
	return s
}

func hook(name, h string, sidecar bool) *structs.Task {
	return &structs.Task{Name: name, Lifecycle: &structs.TaskLifecycleConfig{Hook: h, Sidecar: sidecar}}
}

func TestLifecyclePhasesAndKill(t *testing.T) {
	tasks := []*structs.Task{hook("init", "prestart", false), hook("side", "prestart", true),
		{Name: "main"}, hook("post", "poststart", false), hook("stop", "poststop", false)}
	pending, running := st("pending", false, false), st("running", false, true)
	done, failed := st("dead", false, true), st("dead", true, true)
	cases := []struct {
		name   string
		states map[string]*structs.TaskState
		want   phases
		kill   string
	}{
		{"start", map[string]*structs.TaskState{}, phases{}, ""},
		{"init running", map[string]*structs.TaskState{"init": running, "side": running}, phases{}, ""},
		{"init done, side not started", map[string]*structs.TaskState{"init": done, "side": pending}, phases{}, ""},
		{"prestart done", map[string]*structs.TaskState{"init": done, "side": running}, phases{Main: true}, ""},
		{"main runs", map[string]*structs.TaskState{"init": done, "side": running, "main": running}, phases{Main: true, Poststart: true}, ""},
		{"init failed", map[string]*structs.TaskState{"init": failed, "side": running}, phases{}, structs.TaskSiblingFailed},
		{"main done", map[string]*structs.TaskState{"init": done, "side": running, "main": done, "post": done},
			phases{Main: true, Poststart: true}, structs.TaskMainDead},
		{"all but poststop dead", map[string]*structs.TaskState{"init": done, "side": done, "main": done, "post": done},
			phases{Main: true, Poststart: true, Poststop: true}, structs.TaskMainDead},
		{"failed poststop kills nothing new", map[string]*structs.TaskState{"init": done, "side": done, "main": done, "post": done, "stop": failed},
			phases{Main: true, Poststart: true, Poststop: true}, structs.TaskMainDead},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := lifecyclePhases(tasks, c.states); got != c.want {
				t.Errorf("phases %+v, want %+v", got, c.want)
			}
			if got := lifecycleKill(tasks, c.states); got.Type != c.kill {
				t.Errorf("kill %+v, want %q", got, c.kill)
			}
		})
	}
	leader := []*structs.Task{{Name: "a", Leader: true}, {Name: "b"}}
	if got := lifecycleKill(leader, map[string]*structs.TaskState{"a": done, "b": running}); got.Type != structs.TaskLeaderDead {
		t.Errorf("leader dead: %+v", got)
	}
}

// Deployment health ignores poststop tasks and completed prestart and
// poststart tasks that are not sidecars, as Nomad's health tracker.
func TestHealthStatesSkipLifecycleTasks(t *testing.T) {
	tg := &structs.TaskGroup{Tasks: []*structs.Task{hook("init", "prestart", false), hook("side", "prestart", true),
		{Name: "main"}, hook("stop", "poststop", false)}}
	states := map[string]*structs.TaskState{"init": st("dead", false, true), "side": st("running", false, true),
		"main": st("running", false, true), "stop": st("pending", false, false)}
	got, n := healthStates(tg, states)
	if n != 2 || len(got) != 2 || got["side"] == nil || got["main"] == nil {
		t.Fatalf("states %v, n %d", got, n)
	}
	up := &structs.UpdateStrategy{MinHealthyTime: time.Second, HealthyDeadline: time.Minute}
	if h := HealthAt(got, n, up, time.Unix(0, 0), time.Unix(5, 0)); !h.Decided || !h.Healthy {
		t.Fatalf("health %+v", h)
	}
	states["init"] = st("dead", true, true)
	if got, n = healthStates(tg, states); n != 3 || got["init"] == nil {
		t.Fatalf("a failed prestart task counts: %v %d", got, n)
	}
}
