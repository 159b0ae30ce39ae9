package broker

import (
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/nomadish/nomadish/structs"
)

// Enqueuer takes unblocked evals; the EvalBroker satisfies it.
type Enqueuer interface {
	Enqueue(eval *structs.Evaluation)
}

// BlockedStats counts blocked evals.
type BlockedStats struct {
	TotalBlocked int
	// TotalCancelled counts superseded evals not yet taken by Cancelled.
	TotalCancelled int
}

// BlockedEvals tracks evals that could not place everything, at most one
// per job, until capacity changes. All methods are safe for concurrent use.
type BlockedEvals struct {
	enq    Enqueuer
	logger hclog.Logger
	notify chan struct{} // capacity 1: a token when cancelled evals are waiting

	// mu guards the fields below. Enqueue on enq is called after releasing it.
	mu        sync.Mutex
	enabled   bool
	byJob     map[jobKey]*structs.Evaluation
	cancelled []*structs.Evaluation
	// unblockIndex is the highest index passed to Unblock: an eval planned
	// against an older snapshot may have missed that capacity change.
	// classIndex is the same per computed class, for UnblockClasses, and
	// classMax the highest of classIndex.
	unblockIndex uint64
	classIndex   map[string]uint64
	classMax     uint64
}

// NewBlockedEvals returns a disabled tracker that enqueues into enq.
func NewBlockedEvals(enq Enqueuer, logger hclog.Logger) *BlockedEvals {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &BlockedEvals{
		enq: enq, logger: logger.Named("blocked_evals"),
		notify:     make(chan struct{}, 1),
		byJob:      map[jobKey]*structs.Evaluation{},
		classIndex: map[string]uint64{},
	}
}

// SetEnabled turns tracking on (leadership gain) or off (loss). Disabling
// forgets every blocked and cancelled eval; the new leader re-blocks
// blocked evals from the state store.
func (b *BlockedEvals) SetEnabled(enabled bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.enabled = enabled
	if !enabled {
		b.byJob = map[jobKey]*structs.Evaluation{}
		b.cancelled = nil
		b.unblockIndex, b.classMax = 0, 0
		b.classIndex = map[string]uint64{}
	}
}

// Block tracks a blocked eval. A job keeps at most one: the one with the
// higher CreateIndex (ties: the one blocked last) wins and the other is
// cancelled (see Cancelled). Blocking the same eval ID again replaces it
// silently. An eval whose non-zero SnapshotIndex is older than the last
// Unblock index, or than an UnblockClasses index of a class it did not
// find ineligible, is enqueued at once, since it may have missed that
// capacity change (missedUnblock). Ignored while disabled.
func (b *BlockedEvals) Block(eval *structs.Evaluation) {
	b.mu.Lock()
	if !b.enabled {
		b.mu.Unlock()
		return
	}
	if b.missedUnblock(eval) {
		b.mu.Unlock()
		b.enq.Enqueue(eval)
		return
	}
	k := keyOf(eval)
	old, ok := b.byJob[k]
	switch {
	case !ok || old.ID == eval.ID:
		b.byJob[k] = eval
	case old.CreateIndex > eval.CreateIndex:
		b.cancelLocked(eval)
	default:
		b.byJob[k] = eval
		b.cancelLocked(old)
	}
	b.mu.Unlock()
}

func (b *BlockedEvals) cancelLocked(e *structs.Evaluation) {
	c := e.Copy()
	c.Status = structs.EvalStatusCancelled
	c.StatusDescription = "superseded by a newer blocked evaluation of the job"
	b.cancelled = append(b.cancelled, c)
	select {
	case b.notify <- struct{}{}:
	default:
	}
}

// Cancelled returns, and forgets, the evals superseded since the last call,
// as copies with Status canceled; the leader upserts them through raft.
// The caller owns the slice.
func (b *BlockedEvals) Cancelled() []*structs.Evaluation {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.cancelled
	b.cancelled = nil
	return out
}

// CancelledNotify receives a value when Cancelled has something to return.
func (b *BlockedEvals) CancelledNotify() <-chan struct{} { return b.notify }

// Unblock enqueues every tracked eval (capacity changed at index: a node
// registered or became ready, an alloc became terminal) and forgets them.
// Each is enqueued as a copy that keeps Status blocked, so the scheduler
// knows to ReblockEval it if it still cannot place everything.
func (b *BlockedEvals) Unblock(index uint64) {
	b.mu.Lock()
	if !b.enabled {
		b.mu.Unlock()
		return
	}
	if index > b.unblockIndex {
		b.unblockIndex = index
	}
	evals := make([]*structs.Evaluation, 0, len(b.byJob))
	for k, e := range b.byJob {
		evals = append(evals, e)
		delete(b.byJob, k)
	}
	b.mu.Unlock()
	for _, e := range evals {
		b.enq.Enqueue(e.Copy())
	}
}

// UntrackJob forgets the job's blocked eval (job stopped or purged).
func (b *BlockedEvals) UntrackJob(namespace, jobID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.byJob, jobKey{namespace, jobID})
}

// Stats counts blocked and not yet collected cancelled evals.
func (b *BlockedEvals) Stats() BlockedStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BlockedStats{TotalBlocked: len(b.byJob), TotalCancelled: len(b.cancelled)}
}
