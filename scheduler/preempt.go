package scheduler

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/nomadish/nomadish/scheduler/reconcile"
	"github.com/nomadish/nomadish/structs"
)

// Preemption: when no node has room for a placement and the scheduler
// configuration enables preemption for the job's type, the scheduler looks
// at every node that is feasible for the group on everything but resources
// and, on each, for the cheapest set of running allocations of jobs with a
// priority at least structs.PreemptionMinPriorityDelta lower whose eviction
// makes the placement fit. The node whose set costs least (sum of the
// evicted jobs' priorities, then fewest allocations, then the first in the
// shuffled node order) wins. The evicted allocations go into the same plan
// (Plan.NodePreemptions); the plan applier commits both at once and creates
// an eval for every job that lost allocations, whose scheduler places them
// again when capacity allows.
//
// The generic scheduler (placeAll) and the system scheduler (placeOnNodes,
// whose stack holds one node per Select) both call placePreempting after a
// failed Select; it runs findPreemption on every feasible node of the stack
// (genericStack.SelectPreempting) and adds the winner to the plan. A
// DryRun's annotations count the evictions (annotatePreemptions).

// preemption is one node's way to make room for one placement.
type preemption struct {
	node   *structs.Node
	allocs []*structs.Allocation // to evict, lowest priority first
	cost   int                   // sum of the evicted allocations' job priorities
}

// cheaper reports whether p costs less than o (nil costs the most).
func (p *preemption) cheaper(o *preemption) bool {
	if o == nil {
		return true
	}
	if p.cost != o.cost {
		return p.cost < o.cost
	}
	return len(p.allocs) < len(o.allocs)
}

// preemptionEnabled reports whether the scheduler configuration in state
// lets the scheduler of jobType preempt.
func preemptionEnabled(state State, jobType string) (bool, error) {
	cfg, err := state.SchedulerConfig()
	if err != nil {
		return false, fmt.Errorf("reading the scheduler configuration: %w", err)
	}
	return cfg.PreemptionEnabled(jobType), nil
}

// SelectPreempting is Select's fallback when no node has room for tg: it
// walks the nodes that s.checkers (set up for tg by the Select that just
// failed) accept and returns the cheapest preemption among them, nil when
// evicting allocations of jobs with priority <= priority-10 makes room
// nowhere. The failed Select's metric is left as it was.
func (s *genericStack) SelectPreempting(tg *structs.TaskGroup, priority int) (*preemption, error) {
	saved := s.ctx.metrics
	s.ctx.metrics = &structs.AllocMetric{} // the second pass over the nodes is not reported
	defer func() { s.ctx.metrics = saved }()
	ask, ok := s.asks[tg.Name]
	if !ok {
		ask = structs.AllocatedFor(tg)
	}
	s.source.Reset()
	var best *preemption
next:
	for n := s.source.Next(); n != nil; n = s.source.Next() {
		for _, c := range s.checkers {
			if ok, _ := c.Feasible(n); !ok {
				continue next
			}
		}
		p, err := findPreemption(s.ctx, n, ask, coreAsksOf(tg), priority)
		if err != nil {
			return nil, err
		}
		if p != nil && p.cheaper(best) {
			best = p
		}
	}
	if s.ctx.err != nil { // a checker's state read failed
		return nil, s.ctx.err
	}
	if best != nil {
		s.ctx.untrustSlots() // evictions and a placement, on nodes without their positions
		if s.prefs != nil {
			s.prefs.placed(best.node, -1) // spread and anti-affinity count it
		}
	}
	return best, nil
}

// findPreemption returns the cheapest set of allocations on node (as the
// plan so far leaves it) whose eviction lets ask fit, among those of jobs
// with priority <= priority-10, or nil when there is none. It follows
// Nomad's preemptor: candidates are taken lowest priority first and, within
// a priority, the one closest to the resources still missing; then
// allocations the rest already cover for are dropped again, highest
// priority first; a single allocation that covers everything for less
// replaces the set. The result is checked with structs.AllocsFit and, for a
// group with cores, by picking its cores with the set evicted. The set is
// chosen on sums (a cores ask counts as its MHz), not on which cores each
// victim holds: a node whose freed cores would not form the ask (a require
// ask across NUMA nodes) is passed over.
// TODO(issue 5): choose victims by the cores they free on one NUMA node.
func findPreemption(ctx *evalContext, node *structs.Node, ask *structs.AllocatedResources, cores []coreAsk, priority int) (*preemption, error) {
	proposed, err := ctx.proposedAllocs(node.ID)
	if err != nil {
		return nil, err
	}
	var used structs.ComparableResources
	var candidates []*structs.Allocation
	for _, a := range proposed {
		used.Add(a.AllocatedResources.Comparable())
		if a.Job != nil && a.Job.Priority <= priority-structs.PreemptionMinPriorityDelta {
			candidates = append(candidates, a)
		}
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	askC := ask.Comparable()
	askC.CpuShares = structs.SatAdd(askC.CpuShares, coresCPU(node, cores))
	used.Add(askC)
	need := used
	need.Subtract(node.Comparable()) // > 0 where the node is short
	chosen := pickPreemptions(candidates, need)
	if chosen == nil {
		return nil, nil
	}
	evicted := make(map[string]bool, len(chosen))
	p := &preemption{node: node, allocs: chosen}
	for _, a := range chosen {
		evicted[a.ID] = true
		p.cost += a.Job.Priority
	}
	rest := make([]*structs.Allocation, 0, len(proposed)+1)
	for _, a := range proposed {
		if !evicted[a.ID] {
			rest = append(rest, a)
		}
	}
	probe := &structs.Allocation{DesiredStatus: structs.AllocDesiredStatusRun, AllocatedResources: ask}
	if len(cores) > 0 {
		probe.AllocatedResources = &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{
			"": {Cpu: structs.AllocatedCpuResources{CpuShares: askC.CpuShares}, Memory: structs.AllocatedMemoryResources{MemoryMB: askC.MemoryMB}},
		}, Shared: structs.AllocatedSharedResources{DiskMB: askC.DiskMB}}
	}
	if fit, _, _ := structs.AllocsFit(node, append(rest, probe)); !fit {
		return nil, nil // short on something eviction of these cannot free
	}
	if len(cores) > 0 {
		if _, dim, err := ctx.assignCores(node, cores, chosen); err != nil || dim != "" {
			return nil, err // the freed cores do not form the ask
		}
	}
	return p, nil
}

// pickPreemptions chooses among candidates a set whose resources cover need
// (the positive components), or nil when all of them together do not.
func pickPreemptions(candidates []*structs.Allocation, need structs.ComparableResources) []*structs.Allocation {
	if !short(need) {
		return nil // the node is short on no dimension eviction frees
	}
	pool := append([]*structs.Allocation(nil), candidates...)
	sort.SliceStable(pool, func(i, j int) bool { return pool[i].Job.Priority < pool[j].Job.Priority })
	remaining := need
	var chosen []*structs.Allocation
	for short(remaining) && len(pool) > 0 {
		i := closest(pool, remaining)
		if i < 0 {
			return nil // nothing left frees a dimension still short
		}
		a := pool[i]
		pool = append(pool[:i], pool[i+1:]...)
		chosen = append(chosen, a)
		remaining.Subtract(a.AllocatedResources.Comparable())
	}
	if short(remaining) {
		return nil
	}
	return cheaperSingle(candidates, dropSuperfluous(chosen, need), need)
}

// cheaperSingle returns the one candidate that covers need alone at the
// lowest priority when it costs less than chosen (sum of priorities, then
// count), else chosen: two priority-20 allocs cost more than one of 30.
func cheaperSingle(candidates, chosen []*structs.Allocation, need structs.ComparableResources) []*structs.Allocation {
	cost := 0
	for _, a := range chosen {
		cost += a.Job.Priority
	}
	var best *structs.Allocation
	for _, a := range candidates {
		if covers(a.AllocatedResources.Comparable(), need) && (best == nil || a.Job.Priority < best.Job.Priority) {
			best = a
		}
	}
	if best != nil && (best.Job.Priority < cost || (best.Job.Priority == cost && len(chosen) > 1)) {
		return []*structs.Allocation{best}
	}
	return chosen
}

// closest returns the index, among the pool's lowest-priority allocations
// that free something still short, of the one whose resources are closest to
// remaining (Nomad's basic resource distance); -1 when none frees anything.
func closest(pool []*structs.Allocation, remaining structs.ComparableResources) int {
	best, bestDist, prio := -1, math.Inf(1), 0
	for i, a := range pool {
		if best >= 0 && a.Job.Priority > prio {
			break // pool is sorted by priority: only the lowest level competes
		}
		r := a.AllocatedResources.Comparable()
		if !frees(r, remaining) {
			continue
		}
		if d := distance(r, remaining); best < 0 || d < bestDist {
			best, bestDist, prio = i, d, a.Job.Priority
		}
	}
	return best
}

// dropSuperfluous removes, highest priority and latest chosen first, the
// allocations without which the others still cover need.
func dropSuperfluous(chosen []*structs.Allocation, need structs.ComparableResources) []*structs.Allocation {
	var freed structs.ComparableResources
	for _, a := range chosen {
		freed.Add(a.AllocatedResources.Comparable())
	}
	order := make([]int, len(chosen))
	for i := range order {
		order[i] = len(chosen) - 1 - i
	}
	sort.SliceStable(order, func(i, j int) bool { return chosen[order[i]].Job.Priority > chosen[order[j]].Job.Priority })
	drop := make([]bool, len(chosen))
	for _, i := range order {
		without := freed
		without.Subtract(chosen[i].AllocatedResources.Comparable())
		if covers(without, need) {
			drop[i], freed = true, without
		}
	}
	out := chosen[:0:0]
	for i, a := range chosen {
		if !drop[i] {
			out = append(out, a)
		}
	}
	return out
}

// short reports whether any dimension of need is still positive.
func short(need structs.ComparableResources) bool {
	return need.CpuShares > 0 || need.MemoryMB > 0 || need.DiskMB > 0
}

// covers reports whether freed covers every positive dimension of need.
func covers(freed, need structs.ComparableResources) bool {
	return freed.CpuShares >= need.CpuShares && freed.MemoryMB >= need.MemoryMB && freed.DiskMB >= need.DiskMB
}

// frees reports whether r gives back something of a dimension still short.
func frees(r, remaining structs.ComparableResources) bool {
	return (remaining.CpuShares > 0 && r.CpuShares > 0) || (remaining.MemoryMB > 0 && r.MemoryMB > 0) ||
		(remaining.DiskMB > 0 && r.DiskMB > 0)
}

// distance is how far r is from the remaining need over the short
// dimensions: the root of the summed squared relative differences.
func distance(r, remaining structs.ComparableResources) float64 {
	d := 0.0
	for _, p := range [][2]int64{{remaining.CpuShares, r.CpuShares}, {remaining.MemoryMB, r.MemoryMB}, {remaining.DiskMB, r.DiskMB}} {
		if p[0] > 0 {
			x := float64(p[0]-p[1]) / float64(p[0])
			d += x * x
		}
	}
	return math.Sqrt(d)
}

// appendPreemption adds the evictions of p to the plan, for the allocation
// a placed on p.node, and lists them on a.
func appendPreemption(plan *structs.Plan, a *structs.Allocation, p *preemption) {
	for _, e := range p.allocs {
		plan.AppendPreemptedAlloc(e, a.ID)
		a.PreemptedAllocations = append(a.PreemptedAllocations, e.ID)
	}
}

// placePreempting places p by preemption when the scheduler configuration
// allows it for the job's type and some node can make room: the new
// allocation (with metric, the failed Select's) and its evictions go into
// the plan. placed is false when nothing was placed.
func (s *genericScheduler) placePreempting(stack *genericStack, p reconcile.Placement, metric *structs.AllocMetric, now time.Time) (placed bool, err error) {
	enabled, err := preemptionEnabled(s.state, s.job.Type)
	if err != nil || !enabled {
		return false, err
	}
	pre, err := stack.SelectPreempting(p.TaskGroup, s.job.Priority)
	if err != nil || pre == nil {
		return false, err
	}
	a := s.newAlloc(p, pre.node, metric, now)
	if p.TaskGroup.HasNetworks() { // ports, counting the evicted allocs' as still held
		ports, dim, err := stack.ctx.assignPorts(pre.node, a.AllocatedResources.Shared.Networks)
		if err != nil || dim != "" {
			return false, err
		}
		withPorts(a, ports)
	}
	if asks := coreAsksOf(p.TaskGroup); len(asks) > 0 { // cores, counting the evicted allocs' as free
		cores, dim, err := stack.ctx.assignCores(pre.node, asks, pre.allocs)
		if err != nil || dim != "" {
			return false, err
		}
		withCores(a, cores)
	}
	appendPreemption(s.plan, a, pre)
	s.plan.AppendAlloc(a)
	return true, nil
}

// annotatePreemptions adds the plan's evictions to a dry run's annotations:
// per group of the placing allocation (DesiredUpdates.Preemptions) and as
// a list (PreemptedAllocs).
func annotatePreemptions(ann *structs.PlanAnnotations, plan *structs.Plan) {
	if plan == nil {
		return
	}
	for _, node := range sortedKeys(plan.NodeAllocation) {
		for _, a := range plan.NodeAllocation[node] {
			if len(a.PreemptedAllocations) == 0 {
				continue
			}
			u := ann.DesiredTGUpdates[a.TaskGroup]
			if u == nil {
				u = &structs.DesiredUpdates{}
				ann.DesiredTGUpdates[a.TaskGroup] = u
			}
			u.Preemptions += uint64(len(a.PreemptedAllocations))
		}
	}
	for _, node := range sortedKeys(plan.NodePreemptions) {
		for _, a := range plan.NodePreemptions[node] {
			ann.PreemptedAllocs = append(ann.PreemptedAllocs, a.Stub())
		}
	}
}
