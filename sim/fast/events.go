package fast

import (
	"container/heap"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// eventKind says what an event does when its time comes.
type eventKind uint8

const (
	evArrive     eventKind = iota // trace job i registers
	evEnqueue                     // a delayed eval (WaitUntil) becomes ready
	evPlan                        // a worker's plan reaches the applier
	evResume                      // the applier's result reaches the worker
	evWorkerDone                  // a worker finished its eval (ack)
	evStart                       // allocs start running (client update)
	evFinish                      // allocs complete (client update)
	evStopJob                     // a finite service job is stopped by its owner
	evNodeFail                    // a node fails
	evNodeReturn                  // a failed node returns
	evSample                      // utilization sample
)

// event is one thing happening at a simulated time; seq breaks ties in
// the order events were scheduled, so a run replays exactly.
type event struct {
	at     time.Duration
	seq    uint64
	kind   eventKind
	job    int
	eval   *structs.Evaluation
	w      *worker
	plan   *structs.Plan
	allocs []string
	node   string
}

// eventHeap orders events by (at, seq).
type eventHeap []*event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(*event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}

// schedule adds an event at at (not before now).
func (s *Sim) schedule(at time.Duration, e *event) {
	e.at = max(at, s.now)
	s.seq++
	e.seq = s.seq
	heap.Push(&s.events, e)
}

// readyEval is an eval waiting for a worker.
type readyEval struct {
	eval *structs.Evaluation
	seq  uint64
}

// readyQueue orders ready evals as the eval broker does: higher priority
// first, then first enqueued.
type readyQueue []readyEval

func (q readyQueue) Len() int { return len(q) }
func (q readyQueue) Less(i, j int) bool {
	if q[i].eval.Priority != q[j].eval.Priority {
		return q[i].eval.Priority > q[j].eval.Priority
	}
	return q[i].seq < q[j].seq
}
func (q readyQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *readyQueue) Push(x any)   { *q = append(*q, x.(readyEval)) }
func (q *readyQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}
