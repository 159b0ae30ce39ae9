package state

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// Promotion clears the Canary mark of the group's canaries (as Nomad), and
// bumps their AllocModifyIndex so the client re-registers their services
// with the normal tags.
func TestDeploymentPromotionClearsCanary(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	job := &structs.Job{ID: "j", Namespace: "default", Type: structs.JobTypeService,
		TaskGroups: []*structs.TaskGroup{{Name: "g", Count: 1}}}
	if err := s.UpsertJob(10, job, nil); err != nil {
		t.Fatal(err)
	}
	d := structs.NewDeployment(job)
	d.TaskGroups["g"] = &structs.DeploymentState{DesiredTotal: 1, DesiredCanaries: 1}
	canary := &structs.Allocation{ID: "c1", EvalID: "e", Namespace: "default", JobID: "j", TaskGroup: "g", NodeID: "n",
		DeploymentID: d.ID, DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
		DeploymentStatus: &structs.AllocDeploymentStatus{Canary: true}}
	if err := s.UpsertPlanResults(11, &structs.ApplyPlanResultsRequest{Job: job, AllocsPlaced: []*structs.Allocation{canary}, Deployment: d}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateDeploymentPromotion(12, &structs.DeploymentPromoteRequest{DeploymentID: d.ID, All: true}); err != nil {
		t.Fatal(err)
	}
	a, _ := s.AllocByID(nil, "c1")
	if a.DeploymentStatus.IsCanary() || a.AllocModifyIndex != 12 {
		t.Fatalf("promoted canary still marked: %+v (alloc modify index %d)", a.DeploymentStatus, a.AllocModifyIndex)
	}
	got, _ := s.DeploymentByID(nil, d.ID)
	if st := got.TaskGroups["g"]; !st.Promoted || len(st.PlacedCanaries) != 1 {
		t.Fatalf("deployment state %+v", st)
	}
}
