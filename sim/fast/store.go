package fast

import (
	"container/heap"
	"fmt"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// The simulator's IDs: UUID-shaped, numbered, so a run replays exactly
// (the scheduler, the applier and the endpoints draw random UUIDs; the
// simulator renumbers each new one before it is written).
const (
	simIDPrefix = "00000000-0000-4000-"
	allocIDFmt  = simIDPrefix + "8000-%012x"
	evalIDFmt   = simIDPrefix + "9000-%012x"
)

func isSimID(id string) bool { return strings.HasPrefix(id, simIDPrefix) }

func (s *Sim) newEvalID() string {
	s.evalIDs++
	return fmt.Sprintf(evalIDFmt, s.evalIDs)
}

func (s *Sim) renameEval(e *structs.Evaluation) {
	if e != nil && !isSimID(e.ID) {
		e.ID = s.newEvalID()
	}
}

// renameAllocs renumbers the plan's new allocations.
func (s *Sim) renameAllocs(p *structs.Plan) {
	for _, id := range sortedNodeIDs(p.NodeAllocation) {
		for _, a := range p.NodeAllocation[id] {
			if !isSimID(a.ID) {
				s.allocIDs++
				a.ID = fmt.Sprintf(allocIDFmt, s.allocIDs)
			}
		}
	}
}

func sortedNodeIDs(m map[string][]*structs.Allocation) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// nextIndex is the next raft index: every write gets its own, as the FSM's.
func (s *Sim) nextIndex() uint64 {
	s.index++
	return s.index
}

// The state store's view for the applier.
type planState struct{ store *state.StateStore }

func (p planState) Snapshot() (planapply.Snapshot, error) { return p.store.Snapshot().ReadView(), nil }

// committer is the applier's Committer: the FSM's plan-results write at
// the next index, plus the simulator's bookkeeping of what was committed.
type committer struct{ s *Sim }

func (c committer) ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (uint64, error) {
	s := c.s
	for _, e := range req.Evals {
		s.renameEval(e)
	}
	idx := s.nextIndex()
	if err := s.store.UpsertPlanResults(idx, req); err != nil {
		return 0, err
	}
	s.committed(req)
	return idx, nil
}

// notifier routes the store's change events as the leader does: pending
// evals to the broker, blocked ones to the blocked set, capacity changes
// to Unblock. It is called synchronously inside each write.
type notifier struct{ s *Sim }

func (n notifier) EvalsUpserted(evals []*structs.Evaluation) {
	for _, e := range evals {
		switch e.Status {
		case structs.EvalStatusPending:
			n.s.enqueue(e)
		case structs.EvalStatusBlocked:
			n.s.blocked.Block(e)
		}
	}
}

func (n notifier) CapacityChanged(index uint64) { n.s.blocked.Unblock(index) }

func (n notifier) CapacityChangedOn(index uint64, classes []string) {
	n.s.blocked.UnblockClasses(index, classes)
}

func (n notifier) JobStopped(namespace, jobID string) { n.s.blocked.UntrackJob(namespace, jobID) }

// unblocked collects evals the blocked set releases; the broker takes them
// in a fixed order after the write (the set releases them in map order).
type unblocked struct{ s *Sim }

func (u unblocked) Enqueue(e *structs.Evaluation) { u.s.released = append(u.s.released, e) }

// takeReleased enqueues the evals the blocked set released, ordered, and
// writes those it superseded (a newer blocked eval of the same job) as
// cancelled, as the leader does.
func (s *Sim) takeReleased() {
	if s.blocked.Stats().TotalCancelled > 0 {
		c := s.blocked.Cancelled()
		sort.Slice(c, func(i, j int) bool { return c[i].ID < c[j].ID })
		if err := s.store.UpsertEvals(s.nextIndex(), c); err != nil {
			s.fail(fmt.Errorf("cancelling superseded blocked evals: %w", err))
		}
	}
	if len(s.released) == 0 {
		return
	}
	r := s.released
	s.released = nil
	sort.Slice(r, func(i, j int) bool {
		if r[i].CreateIndex != r[j].CreateIndex {
			return r[i].CreateIndex < r[j].CreateIndex
		}
		return r[i].ID < r[j].ID
	})
	for _, e := range r {
		s.enqueue(e)
	}
}

// jobKey is a job's namespaced ID.
type jobKey struct{ ns, id string }

// enqueue is the broker's Enqueue: an eval waiting for WaitUntil is
// delayed; one whose job has an eval in flight waits for its ack (one eval
// per job at a time); the rest are ready.
func (s *Sim) enqueue(e *structs.Evaluation) {
	if !e.WaitUntil.IsZero() {
		if at := e.WaitUntil.Sub(epoch); at > s.now {
			s.schedule(at, &event{kind: evEnqueue, eval: e})
			return
		}
	}
	k := jobKey{e.Namespace, e.JobID}
	if s.inflight[k] {
		s.waiting[k] = append(s.waiting[k], e)
		return
	}
	s.readySeq++
	heap.Push(&s.ready, readyEval{eval: e, seq: s.readySeq})
}

// ack ends the job's in-flight eval and readies its next waiting one.
func (s *Sim) ack(e *structs.Evaluation) {
	k := jobKey{e.Namespace, e.JobID}
	delete(s.inflight, k)
	if w := s.waiting[k]; len(w) > 0 {
		next := w[0]
		if len(w) == 1 {
			delete(s.waiting, k)
		} else {
			s.waiting[k] = w[1:]
		}
		s.enqueue(next)
	}
}
