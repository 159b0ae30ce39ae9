package structs

import "math"

// AllocsFit reports whether the non-terminal allocations given fit on the
// node: cpu, memory and disk sums, distinct host ports and distinct usable
// reserved cores (cores.go). It is the one fit check: the scheduler's
// ranking and the plan applier's re-check both call it, so they can never
// disagree. When the allocations do not fit, dim names the exhausted
// dimension. used is what the allocations add up to.
func AllocsFit(node *Node, allocs []*Allocation) (fit bool, dim string, used ComparableResources) {
	for _, a := range allocs {
		if a.TerminalStatus() {
			continue
		}
		used.Add(a.AllocatedResources.Comparable())
	}
	ok, dim := node.Comparable().Superset(used)
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
