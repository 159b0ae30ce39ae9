package reconcile

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// A failed allocation its policy no longer reschedules is replaced once it
// is marked ForceReschedule (job eval -force-reschedule).
func TestReconcileForceReschedule(t *testing.T) {
	job := testJob(structs.JobTypeBatch, 1)
	job.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 0, Interval: time.Hour}
	now := time.Unix(0, 0).Add(time.Hour)

	failed := alloc(0, "n", "failed", 1)
	if got := summary(Reconcile(Input{Job: job, Allocs: []*structs.Allocation{failed}, Now: now})); got != "place ; stop ; ignore 0" {
		t.Fatalf("without force: %s", got)
	}
	forced := alloc(0, "n", "failed", 1)
	forced.DesiredTransition.ForceReschedule = new(true)
	if got := summary(Reconcile(Input{Job: job, Allocs: []*structs.Allocation{forced}, Now: now})); got != "place 0(a0-1); stop ; ignore " {
		t.Fatalf("forced: %s", got)
	}
	// Already replaced: the mark changes nothing.
	if got := summary(Reconcile(Input{Job: job, Allocs: []*structs.Allocation{forced, alloc(0, "n", "", 2)}, Now: now})); got != "place ; stop ; ignore 0" {
		t.Fatalf("forced, replaced: %s", got)
	}
}
