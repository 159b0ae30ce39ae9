package state

import (
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// PeriodicJobs lists only active periodic parents, and its watch fires when
// one of them changes but not on a write to another job (the launcher woke
// for every job write and re-read every job: quadratic in the job count).
func TestPeriodicJobsWatchesOnlyParents(t *testing.T) {
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
	web := structstest.Job("web")
	web.Canonicalize()
	if err := s.UpsertJob(2, web, nil); err != nil {
		t.Fatal(err)
	}
	ws := memdb.NewWatchSet()
	jobs, err := s.PeriodicJobs(ws)
	if err != nil || len(jobs) != 1 || jobs[0].ID != "cron" {
		t.Fatalf("PeriodicJobs = %v, %v; want [cron]", jobs, err)
	}
	other := structstest.Job("other")
	other.Canonicalize()
	if err := s.UpsertJob(3, other, nil); err != nil {
		t.Fatal(err)
	}
	if !ws.Watch(time.After(50 * time.Millisecond)) {
		t.Fatal("the watch fired on a write to a job that is not periodic")
	}
	stopped := parent.Copy()
	stopped.Stop = true
	if err := s.UpsertJob(4, stopped, nil); err != nil {
		t.Fatal(err)
	}
	if ws.Watch(time.After(5 * time.Second)) {
		t.Fatal("the watch did not fire when the periodic parent was stopped")
	}
	if jobs, _ := s.PeriodicJobs(nil); len(jobs) != 0 {
		t.Fatalf("a stopped parent is still listed: %v", jobs)
	}
}
