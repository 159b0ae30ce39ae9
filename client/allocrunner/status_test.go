package allocrunner

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestClientStatus(t *testing.T) {
	run := &structs.TaskState{State: structs.TaskStateRunning}
	pend := &structs.TaskState{State: structs.TaskStatePending}
	done := &structs.TaskState{State: structs.TaskStateDead}
	fail := &structs.TaskState{State: structs.TaskStateDead, Failed: true}
	cases := []struct {
		name   string
		states map[string]*structs.TaskState
		want   string
	}{
		{"none", nil, structs.AllocClientStatusPending},
		{"pending", map[string]*structs.TaskState{"a": pend}, structs.AllocClientStatusPending},
		{"running", map[string]*structs.TaskState{"a": run}, structs.AllocClientStatusRunning},
		{"running beats pending", map[string]*structs.TaskState{"a": run, "b": pend}, structs.AllocClientStatusRunning},
		{"running beats dead", map[string]*structs.TaskState{"a": run, "b": done}, structs.AllocClientStatusRunning},
		{"pending beats dead", map[string]*structs.TaskState{"a": pend, "b": done}, structs.AllocClientStatusPending},
		{"all dead", map[string]*structs.TaskState{"a": done, "b": done}, structs.AllocClientStatusComplete},
		{"failed beats all", map[string]*structs.TaskState{"a": run, "b": fail, "c": done}, structs.AllocClientStatusFailed},
	}
	for _, c := range cases {
		if got, desc := ClientStatus(c.states); got != c.want {
			t.Errorf("%s: status = %s (%s), want %s", c.name, got, desc, c.want)
		}
	}
}
