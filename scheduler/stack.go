package scheduler

import (
	"maps"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// genericStack is the placement pipeline of the service and batch
// schedulers. Ordering rules, source to sink:
//
//	static (shuffled ready nodes in the job's datacenters; counts NodesEvaluated)
//	-> feasibility (datacenter, ready/eligible, drivers, network mode and host
//	   networks, host volumes, node pool + constraints;
//	   each failure counted by reason)
//	-> bin-pack (fit with the plan so far, as structs.AllocsFit, on per-node
//	   usage kept up to date with the plan; score by fullness, or emptiness
//	   with the "spread" scheduler algorithm)
//	-> job anti-affinity -> reschedule penalty -> node affinity -> spread
//	   (rank_*.go; each records its score for the metric)
//	-> normalization (final score = average of the scores that apply)
//	-> limit (log2(nodes), min 2; batch 2; with affinity or spread
//	   Config.PreferenceScoreLimit; nodes scoring <= 0 skipped up to 3 times)
//	-> max score
//
// Cheap checks come first so that the fit check, which reads allocations,
// runs only on nodes that could take the group at all. The datacenter and
// ready checkers never fire on the source Process builds (it is already
// filtered, so NodesEvaluated counts only candidates, as in Nomad); they keep
// the stack correct for any other source, such as a simulator's node list.
//
// Within one eval, what does not change between placements is computed
// once per node, found by the node's position in the source list rather
// than by hashing its ID: the static checks' verdict per group
// (feasible_cache.go), the node's capacity, state allocations and usage
// with the plan (node_slots.go), its spread values and anti-affinity
// collisions (rank_spread.go, rank_antiaffinity.go). Only the checks that
// read the plan (distinct_hosts, distinct_property) run on every visit.
// TestCachesChangeNoPlan holds the cached pipeline to the plans of the
// uncached one.
type genericStack struct {
	ctx       *evalContext
	now       func() time.Time
	available map[string]int // ready nodes per datacenter: the stack's copy, shared by its metrics

	source   *staticIterator
	feasible *feasibilityIterator
	dcs      *datacenterChecker
	drivers  *driverChecker
	binPack  *binPackIterator
	maxScore *maxScoreIterator
	asks     map[string]*structs.AllocatedResources // by group name

	// checkers are the feasibility checks in order; ExplainNode (explain.go)
	// runs every one of them on a node after Select has set them up.
	checkers []feasibilityChecker

	// constraints: node pool, job/group/task constraints (feasible_constraint.go)
	constraints *constraintChecker

	prefs *preferenceStack // ranking after bin-pack (stack_prefs.go)

	volumes *hostVolumeChecker // the group's host volumes (feasible_volumes.go)

	networks *networkChecker // the group's network mode and host networks (feasible_network.go)
}

// newGenericStack wires the pipeline over nodes (already filtered to the
// job's ready nodes and shuffled) for a job.
func newGenericStack(ctx *evalContext, job *structs.Job, nodes []*structs.Node, available map[string]int, batch bool, now func() time.Time) *genericStack {
	s := &genericStack{ctx: ctx, now: now, available: maps.Clone(available), asks: map[string]*structs.AllocatedResources{}}
	if s.available == nil {
		s.available = map[string]int{}
	}
	s.source = &staticIterator{ctx: ctx, nodes: nodes, slotted: true}
	s.dcs = &datacenterChecker{datacenters: job.Datacenters}
	s.drivers = &driverChecker{}
	s.constraints = newConstraintChecker(ctx, job)
	s.volumes = &hostVolumeChecker{} // feasible_volumes.go
	s.networks = &networkChecker{}   // feasible_network.go
	s.checkers = []feasibilityChecker{s.dcs, readyChecker{}, s.drivers, s.networks, s.volumes, s.constraints}
	s.feasible = &feasibilityIterator{ctx: ctx, source: s.source, checkers: s.checkers, dynamic: s.constraints,
		static: []feasibilityChecker{s.dcs, readyChecker{}, s.drivers, s.networks, s.volumes, staticConstraints{s.constraints}}}
	s.binPack = newBinPackIterator(ctx, s.feasible)
	s.binPack.static = s.source
	s.prefs = newPreferenceStack(s, job, batch)
	s.maxScore = &maxScoreIterator{source: s.prefs.limit}
	return s
}

// readyInDCs tells the stack that its node list holds only ready nodes of
// the job's datacenters (readyNodesInDCs' output, Process's source): the
// cached feasibility pass then skips the datacenter and ready checks, which
// cannot fail on it, and a node's first check reads less of it.
func (s *genericStack) readyInDCs() {
	s.feasible.static = []feasibilityChecker{s.drivers, s.networks, s.volumes, staticConstraints{s.constraints}}
}

// Select picks a node for one allocation of tg, or nil when none fits. The
// metric explaining the choice is s.ctx.metrics afterwards; err reports a
// state read failure. The caller places an allocation of tg on the node
// returned: the scorers count it for the next placements.
func (s *genericStack) Select(tg *structs.TaskGroup) (*rankedNode, *structs.AllocMetric, error) {
	return s.SelectWith(tg, nil)
}

// SelectWith is Select with options (nil: none).
func (s *genericStack) SelectWith(tg *structs.TaskGroup, opts *selectOptions) (*rankedNode, *structs.AllocMetric, error) {
	start := s.now()
	s.ctx.newMetric(len(s.source.nodes), s.available)
	s.drivers.setTaskGroup(tg)
	s.constraints.setTaskGroup(tg)
	s.volumes.setTaskGroup(tg)
	s.networks.setTaskGroup(tg)
	if s.source.slotted {
		s.feasible.cache.setTaskGroup(tg.Name)
	} else {
		s.feasible.cache.cur = nil
	}
	ask, ok := s.asks[tg.Name]
	if !ok {
		ask = structs.AllocatedFor(tg)
		s.asks[tg.Name] = ask
	}
	s.binPack.setAsk(ask, coreAsksOf(tg))
	var option *rankedNode
	if err := s.prefs.setTaskGroup(tg, opts); err != nil {
		s.ctx.err = err
	} else {
		s.maxScore.Reset()
		if option = s.maxScore.Next(); option != nil {
			s.ctx.planning(option.pos) // the caller places on it
			s.prefs.placed(option.node, option.pos)
		}
	}
	s.feasible.cache.flush(s.ctx.metrics)
	s.ctx.finishMetric()
	s.ctx.metrics.AllocationTime = s.now().Sub(start)
	if s.ctx.err != nil {
		return nil, s.ctx.metrics, s.ctx.err
	}
	return option, s.ctx.metrics, nil
}
