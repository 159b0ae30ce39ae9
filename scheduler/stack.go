package scheduler

import (
	"time"

	"github.com/nomadish/nomadish/structs"
)

// genericStack is the placement pipeline of the service and batch
// schedulers. Ordering rules, source to sink:
//
//	static (shuffled ready nodes in the job's datacenters; counts NodesEvaluated)
//	-> feasibility (datacenter, ready/eligible, drivers; each failure counted by reason)
//	-> bin-pack (fit with the plan so far via structs.AllocsFit; score by fullness)
//	-> limit (log2(nodes), min 2; batch 2)
//	-> max score
//
// Cheap checks come first so that the fit check, which reads allocations,
// runs only on nodes that could take the group at all. The datacenter and
// ready checkers never fire on the source Process builds (it is already
// filtered, so NodesEvaluated counts only candidates, as in Nomad); they keep
// the stack correct for any other source, such as a simulator's node list.
type genericStack struct {
	ctx       *evalContext
	now       func() time.Time
	available map[string]int // ready nodes per datacenter

	source   *staticIterator
	dcs      *datacenterChecker
	drivers  *driverChecker
	binPack  *binPackIterator
	maxScore *maxScoreIterator
	asks     map[string]*structs.AllocatedResources // by group name
}

// newGenericStack wires the pipeline over nodes (already filtered to the
// job's ready nodes and shuffled) for a job.
func newGenericStack(ctx *evalContext, job *structs.Job, nodes []*structs.Node, available map[string]int, batch bool, now func() time.Time) *genericStack {
	s := &genericStack{ctx: ctx, now: now, available: available, asks: map[string]*structs.AllocatedResources{}}
	s.source = &staticIterator{ctx: ctx, nodes: nodes}
	s.dcs = &datacenterChecker{datacenters: job.Datacenters}
	s.drivers = &driverChecker{}
	feasible := &feasibilityIterator{ctx: ctx, source: s.source, checkers: []feasibilityChecker{s.dcs, readyChecker{}, s.drivers}}
	s.binPack = newBinPackIterator(ctx, feasible)
	limit := 2
	if !batch {
		limit = serviceLimit(len(nodes))
	}
	s.maxScore = &maxScoreIterator{source: &limitIterator{source: s.binPack, limit: limit}}
	return s
}

// Select picks a node for one allocation of tg, or nil when none fits. The
// metric explaining the choice is s.ctx.metrics afterwards; err reports a
// state read failure.
func (s *genericStack) Select(tg *structs.TaskGroup) (*rankedNode, *structs.AllocMetric, error) {
	start := s.now()
	s.ctx.newMetric(len(s.source.nodes), s.available)
	s.drivers.setTaskGroup(tg)
	ask, ok := s.asks[tg.Name]
	if !ok {
		ask = structs.AllocatedFor(tg)
		s.asks[tg.Name] = ask
	}
	s.binPack.setAsk(ask)
	s.maxScore.Reset()
	option := s.maxScore.Next()
	s.ctx.finishMetric()
	s.ctx.metrics.AllocationTime = s.now().Sub(start)
	if s.ctx.err != nil {
		return nil, s.ctx.metrics, s.ctx.err
	}
	return option, s.ctx.metrics, nil
}
