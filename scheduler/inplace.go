package scheduler

import (
	"github.com/nomadish/nomadish/scheduler/reconcile"
	"github.com/nomadish/nomadish/structs"
)

// In-place resource updates. A task's cpu, memory and memory_max may change
// without a new alloc when the alloc, at its new size, still fits on its
// node; cores (kept with their IDs and MHz on an in-place update), numa and disk (and the group's networks and ephemeral disk) stay
// destructive. The fit check is structs.AllocsFit over the node's proposed
// allocs with the alloc's old version replaced by the resized one, the same
// check the plan applier makes (it drops the old copy of an alloc the plan
// places again under the same ID).

// inPlaceAllocated returns what a holds once updated in place to tg: each
// task's cpu and memory as tg asks, the rest (shared disk, networks and
// ports, reserved cores and their MHz) as a holds it.
func inPlaceAllocated(a *structs.Allocation, tg *structs.TaskGroup) *structs.AllocatedResources {
	fresh := structs.AllocatedFor(tg)
	out := &structs.AllocatedResources{Tasks: make(map[string]*structs.AllocatedTaskResources, len(fresh.Tasks))}
	if a.AllocatedResources != nil {
		out.Shared = a.AllocatedResources.Shared
	}
	for name, t := range fresh.Tasks {
		nt := *t
		if a.AllocatedResources != nil {
			if ot := a.AllocatedResources.Tasks[name]; ot != nil && len(ot.Cpu.ReservedCores) > 0 {
				nt.Cpu = ot.Cpu // the cores and the MHz they count for stay
			}
		}
		out.Tasks[name] = &nt
	}
	return out
}

// inPlaceFitter answers Input.InPlaceFits for one reconcile. It keeps the
// resized allocs it accepted in a scratch plan, so that two growths on one
// node are checked together; err is the first state error met (the answer
// is then false).
type inPlaceFitter struct {
	ctx *evalContext
	err error
}

func newInPlaceFitter(state State, eval *structs.Evaluation, job *structs.Job) *inPlaceFitter {
	return &inPlaceFitter{ctx: newEvalContext(state, structs.NewPlan(eval, job))}
}

// fits reports whether a, resized to tg's asks, fits on its node next to
// the node's other allocs and the resized allocs accepted before.
func (f *inPlaceFitter) fits(a *structs.Allocation, tg *structs.TaskGroup) bool {
	node, err := f.ctx.node(a.NodeID)
	if err != nil {
		f.err = err
		return false
	}
	if node == nil {
		return false
	}
	n := a.Copy()
	n.AllocatedResources = inPlaceAllocated(a, tg)
	plan := f.ctx.plan
	plan.AppendAlloc(n)
	proposed, err := f.ctx.proposedAllocs(a.NodeID)
	if err != nil {
		f.err = err
	}
	ok := err == nil
	if ok {
		ok, _, _ = structs.AllocsFit(node, proposed)
	}
	if !ok {
		placed := plan.NodeAllocation[a.NodeID]
		plan.NodeAllocation[a.NodeID] = placed[:len(placed)-1]
	}
	return ok
}

// applyInPlaceResources gives n, the plan's copy of an alloc updated in
// place, the allocated resources of the job's current group when they
// changed.
func applyInPlaceResources(n *structs.Allocation, job *structs.Job) {
	if tg := job.LookupTaskGroup(n.TaskGroup); tg != nil && reconcile.Resized(n, tg) {
		n.AllocatedResources = inPlaceAllocated(n, tg)
	}
}
