package structs

import "math"

// Usage is the one fit check's state for one node: what the node offers
// (Avail, node.Comparable()) and what its live allocations add up to
// (Used). AllocsFit builds one from a list of allocations; the scheduler's
// ranker keeps one per node and adds the plan's placements as they come
// (its fast path, without re-reading the node's allocations), and both
// decide with Fits, so the ranker and the plan applier cannot disagree on
// cpu, memory and disk. Host ports and reserved cores are sets, not sums:
// both sides collect them with AddHeldPorts and AddHeldCores.
type Usage struct {
	Avail, Used ComparableResources
}

// NewUsage returns the node's capacity with nothing used.
func NewUsage(node *Node) Usage { return Usage{Avail: node.Comparable()} }

// Add counts a live allocation in Used (a terminal one holds nothing).
func (u *Usage) Add(a *Allocation) {
	if !a.TerminalStatus() {
		u.Used.Add(a.AllocatedResources.Comparable())
	}
}

// Fits reports whether ask fits next to Used, returning the usage with it;
// dim names the first exhausted dimension ("cpu", "memory", "disk")
// otherwise.
func (u *Usage) Fits(ask ComparableResources) (ok bool, dim string, used ComparableResources) {
	used = u.Used
	used.Add(ask)
	ok, dim = u.Avail.Superset(used)
	return ok, dim, used
}

// AllocsFit reports whether the non-terminal allocations given fit on the
// node: cpu, memory and disk sums (Usage.Fits), distinct host ports clear of
// the node's reserved ones (AddHeldPorts) and distinct usable reserved cores
// (AddHeldCores). The plan applier calls it for every node of a plan; the
// scheduler's ranker reaches the same answer through the same Usage.Fits,
// AddHeldPorts and AddHeldCores on its cached per-node state. When the
// allocations do not fit, dim names the exhausted dimension. used is what
// the allocations add up to.
func AllocsFit(node *Node, allocs []*Allocation) (fit bool, dim string, used ComparableResources) {
	u := NewUsage(node)
	for _, a := range allocs {
		u.Add(a)
	}
	ok, dim, used := u.Fits(ComparableResources{})
	if ok && !portsFit(node, allocs) {
		ok, dim = false, DimPortCollision
	}
	if ok && !coresFit(node, allocs) {
		ok, dim = false, DimCoreCollision
	}
	return ok, dim, used
}

// ScoreFitBinPack scores how full the node would be with util used, from 0
// (empty) to 18 (full), as Nomad's bin-packing score does: a node that ends up
// fuller scores higher.
func ScoreFitBinPack(node *Node, util ComparableResources) float64 {
	avail := node.Comparable()
	if avail.CpuShares <= 0 || avail.MemoryMB <= 0 {
		return 0
	}
	freeCPU := 1 - float64(util.CpuShares)/float64(avail.CpuShares)
	freeMem := 1 - float64(util.MemoryMB)/float64(avail.MemoryMB)
	total := math.Pow(10, freeCPU) + math.Pow(10, freeMem)
	score := 20.0 - total
	if score > 18 {
		score = 18
	} else if score < 0 {
		score = 0
	}
	return score
}

// ScoreFitSpread scores how empty the node would be with util used, from 0
// (full) to 18 (empty): Nomad's "spread" scheduler algorithm, the mirror of
// ScoreFitBinPack, so that allocations go to the emptiest nodes first.
func ScoreFitSpread(node *Node, util ComparableResources) float64 {
	avail := node.Comparable()
	if avail.CpuShares <= 0 || avail.MemoryMB <= 0 {
		return 0
	}
	freeCPU := 1 - float64(util.CpuShares)/float64(avail.CpuShares)
	freeMem := 1 - float64(util.MemoryMB)/float64(avail.MemoryMB)
	score := math.Pow(10, freeCPU) + math.Pow(10, freeMem) - 2
	if score > 18 {
		score = 18
	} else if score < 0 {
		score = 0
	}
	return score
}
