package broker

import (
	"container/heap"

	"github.com/nomadish/nomadish/structs"
)

// jobKey names a job across namespaces.
type jobKey struct{ namespace, id string }

func keyOf(e *structs.Evaluation) jobKey { return jobKey{e.Namespace, e.JobID} }

// readyQueue orders one scheduler type's ready evals: higher Priority first,
// then older CreateIndex, then arrival order.
type readyQueue []*queued

type queued struct {
	eval *structs.Evaluation
	seq  uint64 // arrival order, the last tie-breaker
}

func (q readyQueue) Len() int { return len(q) }
func (q readyQueue) Less(i, j int) bool {
	a, b := q[i].eval, q[j].eval
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if a.CreateIndex != b.CreateIndex {
		return a.CreateIndex < b.CreateIndex
	}
	return q[i].seq < q[j].seq
}
func (q readyQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *readyQueue) Push(x any)   { *q = append(*q, x.(*queued)) }
func (q *readyQueue) Pop() any {
	old := *q
	n := len(old)
	x := old[n-1]
	old[n-1] = nil
	*q = old[:n-1]
	return x
}

// outstanding is one delivered, unacknowledged eval.
type outstanding struct {
	eval  *structs.Evaluation
	token string
}

// core is the broker's bookkeeping with no clocks, goroutines or locks: the
// EvalBroker shell calls it under its mutex. Every eval it holds is in
// exactly one place: a ready queue, outstanding, delayed (nacked, waiting to
// be redelivered), a job's pending list, or the delay heap (WaitUntil in the
// future; see delay.go). A job has at most one eval in the first three places
// together (jobEval); the rest of its evals wait in pending, in arrival
// order. A held eval does not occupy its job's slot: it is enqueued like a
// new one when its time comes.
type core struct {
	deliveryLimit int
	seq           uint64

	ready      map[string]*readyQueue         // scheduler type -> queue
	unack      map[string]*outstanding        // eval ID -> delivery
	delayed    map[string]*structs.Evaluation // eval ID -> nacked eval
	jobEval    map[jobKey]string              // job -> its one ready/unacked/delayed eval ID
	pending    map[jobKey][]*structs.Evaluation
	deliveries map[string]int // eval ID -> times delivered
	delay      delayHeap      // evals held until their WaitUntil
	held       map[string]bool
}

func newCore(deliveryLimit int) *core {
	c := &core{deliveryLimit: deliveryLimit}
	c.flush()
	return c
}

// flush forgets every eval.
func (c *core) flush() {
	c.ready = map[string]*readyQueue{}
	c.unack = map[string]*outstanding{}
	c.delayed = map[string]*structs.Evaluation{}
	c.jobEval = map[jobKey]string{}
	c.pending = map[jobKey][]*structs.Evaluation{}
	c.deliveries = map[string]int{}
	c.delay = nil
	c.held = map[string]bool{}
}

// tracked reports whether the eval ID is ready, delayed, held or pending (not
// outstanding: an outstanding eval may be enqueued again to run after it).
func (c *core) tracked(e *structs.Evaluation) bool {
	if _, ok := c.delayed[e.ID]; ok {
		return true
	}
	if c.held[e.ID] {
		return true
	}
	k := keyOf(e)
	if id, ok := c.jobEval[k]; ok && id == e.ID {
		if _, out := c.unack[id]; !out {
			return true
		}
	}
	for _, p := range c.pending[k] {
		if p.ID == e.ID {
			return true
		}
	}
	return false
}

// enqueue adds an eval. It reports whether the eval became ready (rather
// than waiting behind its job's eval, or being a duplicate that is ignored).
func (c *core) enqueue(e *structs.Evaluation) bool {
	if c.tracked(e) {
		return false
	}
	k := keyOf(e)
	if _, busy := c.jobEval[k]; busy {
		c.pending[k] = append(c.pending[k], e)
		return false
	}
	c.jobEval[k] = e.ID
	c.pushReady(e)
	return true
}

func (c *core) pushReady(e *structs.Evaluation) {
	q := c.ready[e.Type]
	if q == nil {
		q = &readyQueue{}
		c.ready[e.Type] = q
	}
	c.seq++
	heap.Push(q, &queued{eval: e, seq: c.seq})
}

// dequeue delivers the best ready eval among the schedulers under token.
func (c *core) dequeue(schedulers []string, token string) (*structs.Evaluation, bool) {
	var best *readyQueue
	for _, s := range schedulers {
		q := c.ready[s]
		if q == nil || q.Len() == 0 {
			continue
		}
		if best == nil || better((*q)[0], (*best)[0]) {
			best = q
		}
	}
	if best == nil {
		return nil, false
	}
	e := heap.Pop(best).(*queued).eval
	c.unack[e.ID] = &outstanding{eval: e, token: token}
	c.deliveries[e.ID]++
	return e, true
}

func better(a, b *queued) bool { return readyQueue{a, b}.Less(0, 1) }

// check returns the outstanding delivery for id, or the reason there is none.
func (c *core) check(id, token string) (*outstanding, error) {
	o, ok := c.unack[id]
	if !ok {
		return nil, ErrNotOutstanding
	}
	if o.token != token {
		return nil, ErrTokenMismatch
	}
	return o, nil
}

// ack finishes a delivery and releases the job's next eval. It reports
// whether an eval became ready.
func (c *core) ack(id, token string) (bool, error) {
	o, err := c.check(id, token)
	if err != nil {
		return false, err
	}
	delete(c.unack, id)
	delete(c.deliveries, id)
	released := c.release(keyOf(o.eval))
	c.shrinkIdle()
	return released, nil
}

// shrinkIdle gives back the memory of the per-eval and per-job maps once
// they are empty: Go maps keep the buckets of their largest size, which
// after a burst of 100,000 evals is megabytes held by an idle broker
// (found by tools/gcbench's heap profile after system gc).
func (c *core) shrinkIdle() {
	if len(c.jobEval) == 0 && len(c.pending) == 0 && len(c.unack) == 0 && len(c.deliveries) == 0 {
		c.jobEval, c.pending = map[jobKey]string{}, map[jobKey][]*structs.Evaluation{}
		c.unack, c.deliveries = map[string]*outstanding{}, map[string]int{}
	}
}

// release frees the job's slot and makes its next pending eval ready.
func (c *core) release(k jobKey) bool {
	delete(c.jobEval, k)
	next := c.pending[k]
	if len(next) == 0 {
		return false
	}
	e := next[0]
	if len(next) == 1 {
		delete(c.pending, k)
	} else {
		c.pending[k] = next[1:]
	}
	c.jobEval[k] = e.ID
	c.pushReady(e)
	return true
}

// nackResult says what became of a nacked eval.
type nackResult struct {
	failed     *structs.Evaluation // over the delivery limit: out of the broker
	delayed    bool                // waiting in delayed for redeliver
	deliveries int
	released   bool // the job's next eval became ready (only when failed)
}

// nack ends a delivery without success (explicit nack or timeout). Under
// the delivery limit the eval moves to delayed (the caller schedules
// redeliver); at the limit it leaves the broker as failed.
func (c *core) nack(id, token string) (nackResult, error) {
	o, err := c.check(id, token)
	if err != nil {
		return nackResult{}, err
	}
	delete(c.unack, id)
	n := c.deliveries[id]
	if n >= c.deliveryLimit {
		delete(c.deliveries, id)
		return nackResult{failed: o.eval, deliveries: n, released: c.release(keyOf(o.eval))}, nil
	}
	c.delayed[id] = o.eval
	return nackResult{delayed: true, deliveries: n}, nil
}

// redeliver moves a delayed eval back to its ready queue. It reports false
// when the eval is no longer delayed (flushed).
func (c *core) redeliver(id string) bool {
	e, ok := c.delayed[id]
	if !ok {
		return false
	}
	delete(c.delayed, id)
	c.pushReady(e)
	return true
}

// SchedulerStats counts one scheduler type's evals.
type SchedulerStats struct {
	Ready   int // waiting for a worker
	Unacked int // delivered, not yet acked
	Blocked int // waiting behind another eval of their job
	Waiting int // nacked, waiting for the redelivery delay
	Delayed int // held until their WaitUntil
}

// BrokerStats counts the broker's evals.
type BrokerStats struct {
	TotalReady   int
	TotalUnacked int
	// TotalBlocked counts evals waiting behind another eval of their job.
	TotalBlocked int
	// TotalWaiting counts nacked evals waiting for their redelivery delay.
	TotalWaiting int
	// TotalDelayed counts evals held until their WaitUntil (e.g. follow-up
	// evals of delayed reschedules).
	TotalDelayed int
	ByScheduler  map[string]SchedulerStats
}

func (c *core) stats() BrokerStats {
	s := BrokerStats{ByScheduler: map[string]SchedulerStats{}}
	for typ, q := range c.ready {
		st := s.ByScheduler[typ]
		st.Ready = q.Len()
		s.ByScheduler[typ] = st
		s.TotalReady += q.Len()
	}
	for _, o := range c.unack {
		st := s.ByScheduler[o.eval.Type]
		st.Unacked++
		s.ByScheduler[o.eval.Type] = st
		s.TotalUnacked++
	}
	for _, p := range c.pending {
		for _, e := range p {
			st := s.ByScheduler[e.Type]
			st.Blocked++
			s.ByScheduler[e.Type] = st
		}
		s.TotalBlocked += len(p)
	}
	for _, e := range c.delayed {
		st := s.ByScheduler[e.Type]
		st.Waiting++
		s.ByScheduler[e.Type] = st
	}
	s.TotalWaiting = len(c.delayed)
	for _, q := range c.delay {
		st := s.ByScheduler[q.eval.Type]
		st.Delayed++
		s.ByScheduler[q.eval.Type] = st
	}
	s.TotalDelayed = len(c.delay)
	return s
}
