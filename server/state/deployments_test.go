package state

import (
	"bytes"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestDeploymentHealthCountsAndPersist(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	job := &structs.Job{ID: "j", Namespace: "default", Type: structs.JobTypeService,
		TaskGroups: []*structs.TaskGroup{{Name: "g", Count: 2}}}
	if err := s.UpsertJob(10, job, nil); err != nil {
		t.Fatal(err)
	}
	d := structs.NewDeployment(job)
	d.TaskGroups["g"] = &structs.DeploymentState{DesiredTotal: 2, ProgressDeadline: time.Minute}
	placed := []*structs.Allocation{
		{ID: "a1", EvalID: "e", Namespace: "default", JobID: "j", TaskGroup: "g", NodeID: "n", DeploymentID: d.ID,
			DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending},
		{ID: "a2", EvalID: "e", Namespace: "default", JobID: "j", TaskGroup: "g", NodeID: "n", DeploymentID: d.ID,
			DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
			DeploymentStatus: &structs.AllocDeploymentStatus{Canary: true}},
	}
	if err := s.UpsertPlanResults(11, &structs.ApplyPlanResultsRequest{Job: job, AllocsPlaced: placed, Deployment: d}); err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	at := time.Unix(5000, 0)
	report := []*structs.Allocation{
		{ID: "a1", ClientStatus: structs.AllocClientStatusRunning, DeploymentID: d.ID,
			DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: &yes, Timestamp: at}},
		{ID: "a2", ClientStatus: structs.AllocClientStatusRunning, DeploymentID: "an-older-one",
			DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: &no, Timestamp: at}},
	}
	if err := s.UpdateAllocsFromClient(12, report, nil); err != nil {
		t.Fatal(err)
	}
	// A repeated report is not counted twice.
	if err := s.UpdateAllocsFromClient(13, report[:1], nil); err != nil {
		t.Fatal(err)
	}
	got, _ := s.DeploymentByID(nil, d.ID)
	st := got.TaskGroups["g"]
	if st.PlacedAllocs != 2 || st.HealthyAllocs != 1 || st.UnhealthyAllocs != 0 || len(st.PlacedCanaries) != 1 ||
		!st.RequireProgressBy.Equal(at.Add(time.Minute)) {
		t.Fatalf("deployment state %+v", st)
	}
	a2, _ := s.AllocByID(nil, "a2")
	if !a2.DeploymentStatus.IsCanary() || a2.DeploymentStatus.Healthy != nil {
		t.Fatalf("a report for another deployment was merged: %+v", a2.DeploymentStatus)
	}

	var buf bytes.Buffer
	if err := s.Snapshot().Persist(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	latest, _ := r.LatestDeploymentByJobID(nil, "default", "j")
	if latest == nil || latest.ID != d.ID || latest.TaskGroups["g"].HealthyAllocs != 1 {
		t.Fatalf("restored deployment %+v", latest)
	}
}
