package broker

import (
	"container/heap"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// delayHeap holds evals whose WaitUntil has not come, earliest first (then
// arrival order). Part of core: no clocks, the shell says what "now" is.
type delayHeap []*queued

func (h delayHeap) Len() int { return len(h) }
func (h delayHeap) Less(i, j int) bool {
	a, b := h[i].eval.WaitUntil, h[j].eval.WaitUntil
	if !a.Equal(b) {
		return a.Before(b)
	}
	return h[i].seq < h[j].seq
}
func (h delayHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *delayHeap) Push(x any)   { *h = append(*h, x.(*queued)) }
func (h *delayHeap) Pop() any {
	old := *h
	n := len(old)
	x := old[n-1]
	old[n-1] = nil
	*h = old[:n-1]
	return x
}

// hold keeps an eval until its WaitUntil. It reports false for an eval ID
// already held or otherwise tracked (a duplicate enqueue).
func (c *core) hold(e *structs.Evaluation) bool {
	if c.held[e.ID] || c.tracked(e) {
		return false
	}
	c.seq++
	heap.Push(&c.delay, &queued{eval: e, seq: c.seq})
	c.held[e.ID] = true
	return true
}

// nextWait returns the earliest WaitUntil held, if any.
func (c *core) nextWait() (time.Time, bool) {
	if len(c.delay) == 0 {
		return time.Time{}, false
	}
	return c.delay[0].eval.WaitUntil, true
}

// releaseDue enqueues every held eval whose WaitUntil is not after now, in
// WaitUntil order. It reports whether one became ready.
func (c *core) releaseDue(now time.Time) bool {
	ready := false
	for len(c.delay) > 0 && !c.delay[0].eval.WaitUntil.After(now) {
		e := heap.Pop(&c.delay).(*queued).eval
		delete(c.held, e.ID)
		if c.enqueue(e) {
			ready = true
		}
	}
	return ready
}
