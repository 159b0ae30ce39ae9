package state

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// A launch registers its child once, the last launch only moves forward,
// the parent's children are listed, and purging the parent drops its record.
func TestPeriodicLaunchTable(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	parent := structstest.Job("cron")
	parent.Type = structs.JobTypeBatch
	parent.Periodic = &structs.PeriodicConfig{Enabled: true, Spec: "* * * * *"}
	parent.Canonicalize()
	if err := s.UpsertJob(1, parent, nil); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := structs.NewPeriodicLaunch(parent, t0, t0)
	if err := s.UpsertPeriodicLaunch(2, r.Launch, r.Child, r.Eval); err != nil {
		t.Fatal(err)
	}
	again := structs.NewPeriodicLaunch(parent, t0, t0)
	if err := s.UpsertPeriodicLaunch(3, again.Launch, again.Child, again.Eval); err != nil {
		t.Fatal(err)
	}
	evals, _ := s.EvalsByJob(nil, "default", r.Child.ID)
	if len(evals) != 1 || evals[0].ID != r.Eval.ID {
		t.Fatalf("evals of the child = %+v: a replayed launch wrote another", evals)
	}
	older := structs.NewPeriodicLaunch(parent, t0.Add(-time.Minute), t0)
	if err := s.UpsertPeriodicLaunch(4, older.Launch, nil, nil); err != nil {
		t.Fatal(err)
	}
	last, _ := s.PeriodicLaunchByID(nil, "default", "cron")
	if !last.Launch.Equal(t0) || last.CreateIndex != 2 || last.ModifyIndex != 4 {
		t.Fatalf("last launch = %+v", last)
	}
	kids, _ := s.JobChildren(nil, "default", "cron")
	if len(kids) != 1 || kids[0].ID != structs.PeriodicChildID("cron", t0) {
		t.Fatalf("children = %+v", kids)
	}
	if err := s.DeleteJob(5, "default", "cron", nil); err != nil {
		t.Fatal(err)
	}
	if last, _ := s.PeriodicLaunchByID(nil, "default", "cron"); last != nil {
		t.Fatalf("launch record kept after purge: %+v", last)
	}
}
