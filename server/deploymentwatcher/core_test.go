package deploymentwatcher

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestDecide(t *testing.T) {
	now := time.Unix(10_000, 0)
	yes := true
	canary := &structs.Allocation{ID: "c1", DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: &yes, Canary: true},
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning}
	dep := func(s structs.DeploymentState) *structs.Deployment {
		return &structs.Deployment{ID: "d", Status: structs.DeploymentStatusRunning,
			TaskGroups: map[string]*structs.DeploymentState{"g": &s}}
	}
	cases := []struct {
		name string
		d    *structs.Deployment
		seen int
		want []Kind
	}{
		{"nothing healthy yet", dep(structs.DeploymentState{DesiredTotal: 3, PlacedAllocs: 1}), 0, nil},
		{"an alloc became healthy", dep(structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 1}), 0, []Kind{Eval}},
		{"already seen", dep(structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 1}), 1, nil},
		{"all healthy", dep(structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 3}), 2, []Kind{Succeed}},
		{"unhealthy alloc", dep(structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 2, UnhealthyAllocs: 1}), 0, []Kind{Fail}},
		{"progress deadline passed", dep(structs.DeploymentState{DesiredTotal: 3, ProgressDeadline: time.Minute,
			RequireProgressBy: now.Add(-time.Second)}), 0, []Kind{Fail}},
		{"progress deadline ahead", dep(structs.DeploymentState{DesiredTotal: 3, ProgressDeadline: time.Minute,
			RequireProgressBy: now.Add(time.Second)}), 0, nil},
		{"healthy canary waits for a manual promotion", dep(structs.DeploymentState{DesiredTotal: 2, DesiredCanaries: 1,
			PlacedCanaries: []string{"c1"}, HealthyAllocs: 1, ProgressDeadline: time.Minute, RequireProgressBy: now.Add(-time.Hour)}), 1, nil},
		{"healthy canary auto-promotes", dep(structs.DeploymentState{DesiredTotal: 2, DesiredCanaries: 1, AutoPromote: true,
			PlacedCanaries: []string{"c1"}, HealthyAllocs: 1}), 1, []Kind{Promote}},
		{"promoted, all healthy", dep(structs.DeploymentState{DesiredTotal: 2, DesiredCanaries: 1, Promoted: true,
			PlacedCanaries: []string{"c1"}, HealthyAllocs: 2}), 1, []Kind{Succeed}},
		{"not running", &structs.Deployment{Status: structs.DeploymentStatusFailed}, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Decide(c.d, []*structs.Allocation{canary}, now, c.seen)
			var kinds []Kind
			for _, a := range got {
				kinds = append(kinds, a.Kind)
			}
			if len(kinds) != len(c.want) {
				t.Fatalf("got %v, want %v", kinds, c.want)
			}
			for i := range kinds {
				if kinds[i] != c.want[i] {
					t.Fatalf("got %v, want %v", kinds, c.want)
				}
			}
		})
	}
}

func TestFailRequestReverts(t *testing.T) {
	d := &structs.Deployment{ID: "d", JobVersion: 3, TaskGroups: map[string]*structs.DeploymentState{"g": {AutoRevert: true}}}
	cur := &structs.Job{ID: "j", Version: 3}
	versions := []*structs.Job{{ID: "j", Version: 3}, {ID: "j", Version: 2}, {ID: "j", Version: 1, Stable: true}}
	req := FailRequest(d, "boom", cur, versions, time.Unix(1, 0))
	if req.Job == nil || req.Job.Version != 4 || req.Job.Stable {
		t.Fatalf("revert job %+v, want version 4 copied from 1", req.Job)
	}
	if want := "boom - rolling back to job version 1"; req.DeploymentUpdate.StatusDescription != want {
		t.Fatalf("description %q, want %q", req.DeploymentUpdate.StatusDescription, want)
	}
	d.TaskGroups["g"].AutoRevert = false
	if req := FailRequest(d, "boom", cur, versions, time.Unix(1, 0)); req.Job != nil || req.Eval == nil {
		t.Fatalf("no auto_revert: job %+v eval %+v", req.Job, req.Eval)
	}
}
