package broker

import (
	"slices"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// classEval is a blocked eval of job that found the classes in elig
// eligible (true) or not (false).
func classEval(job string, createIndex uint64, elig map[string]bool, escaped bool) *structs.Evaluation {
	e := blockedEval(job, createIndex)
	e.ClassEligibility, e.EscapedComputedClass = elig, escaped
	return e
}

func jobsOf(evals []*structs.Evaluation) []string {
	var out []string
	for _, e := range evals {
		out = append(out, e.JobID)
	}
	slices.Sort(out)
	return out
}

func TestUnblockClassesWakesOnlyEvalsTheClassMayHelp(t *testing.T) {
	enq := &recordingEnqueuer{}
	b := NewBlockedEvals(enq, nil)
	b.SetEnabled(true)
	b.Block(classEval("eligible", 1, map[string]bool{"gpu": true, "cpu": false}, false))
	b.Block(classEval("ineligible", 2, map[string]bool{"gpu": false, "cpu": true}, false))
	b.Block(classEval("unseen", 3, map[string]bool{"cpu": true}, false))
	b.Block(classEval("escaped", 4, map[string]bool{"gpu": false}, true))
	b.Block(classEval("noclasses", 5, nil, false))

	b.UnblockClasses(10, []string{"gpu"})
	if got, want := jobsOf(enq.evals), []string{"eligible", "escaped", "noclasses", "unseen"}; !slices.Equal(got, want) {
		t.Fatalf("unblocked %v, want %v", got, want)
	}
	if s := b.Stats(); s.TotalBlocked != 1 {
		t.Fatalf("blocked %d, want 1 (ineligible)", s.TotalBlocked)
	}
	for _, e := range enq.evals {
		if e.Status != structs.EvalStatusBlocked {
			t.Fatalf("unblocked copy has status %q", e.Status)
		}
	}

	enq.evals = nil
	b.UnblockClasses(11, []string{"gpu", "cpu"}) // cpu is eligible for it
	if got := jobsOf(enq.evals); !slices.Equal(got, []string{"ineligible"}) {
		t.Fatalf("unblocked %v, want [ineligible]", got)
	}
}

func TestUnblockClassesEmptyIsUnblockAll(t *testing.T) {
	enq := &recordingEnqueuer{}
	b := NewBlockedEvals(enq, nil)
	b.SetEnabled(true)
	b.Block(classEval("a", 1, map[string]bool{"gpu": false}, false))
	b.UnblockClasses(10, nil)
	if len(enq.evals) != 1 || b.Stats().TotalBlocked != 0 {
		t.Fatalf("unblocked %d, blocked %d", len(enq.evals), b.Stats().TotalBlocked)
	}
}

func TestBlockAfterMissedClassUnblockRequeues(t *testing.T) {
	enq := &recordingEnqueuer{}
	b := NewBlockedEvals(enq, nil)
	b.SetEnabled(true)
	b.UnblockClasses(20, []string{"gpu"})

	// Planned at 15, before the change on gpu at 20.
	missed := classEval("missed", 1, map[string]bool{"gpu": true}, false)
	missed.SnapshotIndex = 15
	unseen := classEval("unseen", 2, map[string]bool{"cpu": true}, false)
	unseen.SnapshotIndex = 15
	escaped := classEval("escaped", 3, map[string]bool{"gpu": false}, true)
	escaped.SnapshotIndex = 15
	// Found gpu ineligible, or planned after the change: stays blocked.
	ineligible := classEval("ineligible", 4, map[string]bool{"gpu": false}, false)
	ineligible.SnapshotIndex = 15
	current := classEval("current", 5, map[string]bool{"gpu": true}, false)
	current.SnapshotIndex = 20
	for _, e := range []*structs.Evaluation{missed, unseen, escaped, ineligible, current} {
		b.Block(e)
	}
	if got, want := jobsOf(enq.evals), []string{"escaped", "missed", "unseen"}; !slices.Equal(got, want) {
		t.Fatalf("requeued at once %v, want %v", got, want)
	}
	if s := b.Stats(); s.TotalBlocked != 2 {
		t.Fatalf("blocked %d, want 2", s.TotalBlocked)
	}

	// An Unblock of every class after the snapshot catches every eval.
	b.Unblock(30)
	enq.evals = nil
	late := classEval("late", 6, map[string]bool{"gpu": false}, false)
	late.SnapshotIndex = 25
	b.Block(late)
	if len(enq.evals) != 1 {
		t.Fatalf("an eval planned before Unblock(30) was not requeued")
	}
}

func TestUnblockClassesKeepsOneBlockedEvalPerJob(t *testing.T) {
	enq := &recordingEnqueuer{}
	b := NewBlockedEvals(enq, nil)
	b.SetEnabled(true)
	b.Block(classEval("a", 1, map[string]bool{"gpu": false}, false))
	b.Block(classEval("a", 2, map[string]bool{"gpu": false}, false))
	b.UnblockClasses(10, []string{"gpu"})
	if s := b.Stats(); s.TotalBlocked != 1 || s.TotalCancelled != 1 || len(enq.evals) != 0 {
		t.Fatalf("stats %+v, unblocked %d", s, len(enq.evals))
	}
}
