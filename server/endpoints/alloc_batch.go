package endpoints

import (
	"sync"
	"time"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// allocBatcher gathers client alloc reports (Node.UpdateAlloc) for a short
// window and commits them in one raft entry, with evals to replace the
// allocations that failed.
type allocBatcher struct {
	d *Deps
	// window is on wall time (time.AfterFunc), not d.Clock: it bounds how
	// long a Node.UpdateAlloc reply waits, like an RPC hold timeout, and
	// stamps nothing (the entry's UpdatedAt comes from d.Clock).
	window time.Duration

	mu      sync.Mutex
	pending []*structs.Allocation // guarded by mu
	fut     *batchFuture          // guarded by mu; nil when no batch is open
	timer   *time.Timer           // guarded by mu
}

// batchFuture is closed (done) once its batch is committed or failed.
type batchFuture struct {
	done  chan struct{}
	index uint64
	err   error
}

func newAllocBatcher(d *Deps, window time.Duration) *allocBatcher {
	return &allocBatcher{d: d, window: window}
}

// add queues allocs in the open batch (opening one if needed) and returns
// the batch's future. A nil entry fails the call alone (a done future with
// a 400 coded error naming it) and queues nothing: a nil in a committed
// raft entry would fail every server that applies it. (The server's RPC
// dispatch already refuses such requests; this keeps the batcher safe for
// any caller.)
func (b *allocBatcher) add(allocs []*structs.Allocation) *batchFuture {
	for i, a := range allocs {
		if a == nil {
			f := &batchFuture{done: make(chan struct{}),
				err: structs.NewCodedError(structs.ErrCodeBadRequest, "invalid request: Alloc[%d] is null", i)}
			close(f.done)
			return f
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fut == nil {
		b.fut = &batchFuture{done: make(chan struct{})}
		b.timer = time.AfterFunc(b.window, b.flush)
	}
	b.pending = append(b.pending, allocs...)
	return b.fut
}

// flush commits the open batch. It runs on a timer goroutine, where a
// panic would end the process: one is recovered, logged, and fails the
// batch's callers with a 500 coded error.
func (b *allocBatcher) flush() {
	b.mu.Lock()
	allocs, fut := b.pending, b.fut
	b.pending, b.fut, b.timer = nil, nil, nil
	b.mu.Unlock()
	if fut == nil {
		return
	}
	defer close(fut.done)
	defer b.d.Recover(structs.NodeUpdateAllocRPC+" (batch commit)", &fut.err)
	now := b.d.Clock.Now()
	evals, err := failedAllocEvals(b.d.State().Snapshot(), allocs, now)
	if err == nil {
		req := &structs.AllocUpdateRequest{Alloc: allocs, Evals: evals, UpdatedAt: now.UnixNano()}
		fut.index, _, err = b.d.Apply(structs.AllocClientUpdateRequestType, req)
	}
	fut.err = err
}

// stop fails the open batch (shutdown).
func (b *allocBatcher) stop() {
	b.mu.Lock()
	fut, t := b.fut, b.timer
	b.pending, b.fut, b.timer = nil, nil, nil
	b.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	if fut != nil {
		fut.err = structs.ErrNoLeader
		close(fut.done)
	}
}

// failedAllocEvals returns one alloc-failure eval per job whose allocation
// the client now reports failed (and the server did not know as failed),
// unless the job is stopped or gone.
func failedAllocEvals(snap *state.StateSnapshot, updates []*structs.Allocation, now time.Time) ([]*structs.Evaluation, error) {
	seen := map[structs.NamespacedID]bool{}
	var evals []*structs.Evaluation
	for _, u := range updates {
		if u == nil || u.ClientStatus != structs.AllocClientStatusFailed {
			continue
		}
		a, err := snap.AllocByID(nil, u.ID)
		if err != nil {
			return nil, err
		}
		if a == nil || a.ClientStatus == structs.AllocClientStatusFailed || a.DesiredStatus != structs.AllocDesiredStatusRun {
			continue
		}
		key := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
		if seen[key] {
			continue
		}
		seen[key] = true
		job, err := snap.JobByID(nil, a.Namespace, a.JobID)
		if err != nil {
			return nil, err
		}
		if job == nil || job.Stop {
			continue
		}
		ev := newJobEval(job, structs.EvalTriggerRetryFailedAlloc, now)
		ev.JobModifyIndex = job.JobModifyIndex
		evals = append(evals, ev)
	}
	return evals, nil
}
