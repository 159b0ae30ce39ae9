package broker

import (
	"sort"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

type recordingEnqueuer struct{ evals []*structs.Evaluation }

func (r *recordingEnqueuer) Enqueue(e *structs.Evaluation) { r.evals = append(r.evals, e) }

func blockedEval(job string, createIndex uint64) *structs.Evaluation {
	e := mkEval(job, 50, createIndex)
	e.Status = structs.EvalStatusBlocked
	return e
}

func TestBlockedDedupNewestWins(t *testing.T) {
	enq := &recordingEnqueuer{}
	b := NewBlockedEvals(enq, nil)
	b.SetEnabled(true)
	b.Block(blockedEval("a", 5))
	b.Block(blockedEval("a", 9)) // replaces 5
	b.Block(blockedEval("a", 7)) // older than 9: cancelled itself
	b.Block(blockedEval("b", 3))
	b.Block(blockedEval("b", 3)) // same ID: no cancellation
	if s := b.Stats(); s.TotalBlocked != 2 || s.TotalCancelled != 2 {
		t.Fatalf("stats %+v", s)
	}
	select {
	case <-b.CancelledNotify():
	default:
		t.Fatal("no cancel notification")
	}
	var ids []string
	for _, e := range b.Cancelled() {
		if e.Status != structs.EvalStatusCancelled {
			t.Fatalf("cancelled eval status %q", e.Status)
		}
		ids = append(ids, e.ID)
	}
	sort.Strings(ids)
	if len(ids) != 2 || ids[0] != "a-5" || ids[1] != "a-7" {
		t.Fatalf("cancelled %v", ids)
	}
	if len(b.Cancelled()) != 0 {
		t.Fatal("Cancelled did not forget")
	}
}

func TestUnblockEnqueuesCopies(t *testing.T) {
	enq := &recordingEnqueuer{}
	b := NewBlockedEvals(enq, nil)
	b.SetEnabled(true)
	orig := blockedEval("a", 5)
	b.Block(orig)
	b.Block(blockedEval("b", 6))
	b.UntrackJob("default", "b")
	b.Unblock(10)
	if len(enq.evals) != 1 || enq.evals[0].ID != "a-5" {
		t.Fatalf("enqueued %v", enq.evals)
	}
	if enq.evals[0] == orig {
		t.Fatal("enqueued the tracked eval itself, not a copy")
	}
	if s := b.Stats(); s.TotalBlocked != 0 {
		t.Fatalf("still tracked: %+v", s)
	}
	// An eval planned before the last unblock skips the blocked set.
	late := blockedEval("c", 7)
	late.SnapshotIndex = 9
	b.Block(late)
	if len(enq.evals) != 2 || enq.evals[1].ID != "c-7" {
		t.Fatalf("late eval not enqueued: %v", enq.evals)
	}
	fresh := blockedEval("d", 11)
	fresh.SnapshotIndex = 10
	b.Block(fresh)
	if s := b.Stats(); s.TotalBlocked != 1 {
		t.Fatalf("fresh eval not blocked: %+v", s)
	}
}

func TestBlockedDisabled(t *testing.T) {
	enq := &recordingEnqueuer{}
	b := NewBlockedEvals(enq, nil)
	b.Block(blockedEval("a", 1))
	if s := b.Stats(); s.TotalBlocked != 0 {
		t.Fatalf("blocked while disabled: %+v", s)
	}
	b.SetEnabled(true)
	b.Block(blockedEval("a", 1))
	b.Block(blockedEval("a", 2))
	b.SetEnabled(false)
	if s := b.Stats(); s.TotalBlocked != 0 || s.TotalCancelled != 0 {
		t.Fatalf("not flushed: %+v", s)
	}
	b.Unblock(5)
	if len(enq.evals) != 0 {
		t.Fatalf("enqueued while disabled: %v", enq.evals)
	}
}

func TestBlockedIntoBroker(t *testing.T) {
	br := testBroker(t)
	b := NewBlockedEvals(br, nil)
	b.SetEnabled(true)
	b.Block(blockedEval("a", 5))
	b.Unblock(6)
	e, _ := dequeueNow(t, br)
	if e.ID != "a-5" || e.Status != structs.EvalStatusBlocked {
		t.Fatalf("dequeued %s status %s", e.ID, e.Status)
	}
}
