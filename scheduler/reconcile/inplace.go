package reconcile

import "github.com/nomadish/nomadish/structs"

// fixedResources is the part of a task's resources an in-place update must
// not change: reserved cores, their NUMA affinity and disk.
func fixedResources(r *structs.Resources) structs.Resources {
	if r == nil {
		r = structs.DefaultResources()
	}
	out := structs.Resources{Cores: r.Cores, DiskMB: r.DiskMB}
	if r.NUMA != nil && r.NUMA.Affinity != "" && r.NUMA.Affinity != structs.NUMAAffinityNone {
		out.NUMA = &structs.NUMA{Affinity: r.NUMA.Affinity} // "none" and no block are the same ask
	}
	return out
}

// classifyInPlace is classifyUpdate with the fit check: an in-place update
// that resizes the alloc becomes destructive when fits says the new size
// does not fit on its node. fits nil means it always fits.
func classifyInPlace(a *structs.Allocation, job *structs.Job, tg *structs.TaskGroup,
	fits func(*structs.Allocation, *structs.TaskGroup) bool) updateKind {
	k := classifyUpdate(a.Job, job, tg)
	if k == updateInPlace && fits != nil && Resized(a, tg) && !fits(a, tg) {
		return updateDestructive
	}
	return k
}

// Resized reports whether tg asks a task of a for another cpu or memory
// (memory_max included) than a holds, so that updating a in place to tg
// changes its allocated resources. A task with reserved cores keeps its cpu
// (only its memory counts); an alloc without allocated resources is never
// resized.
func Resized(a *structs.Allocation, tg *structs.TaskGroup) bool {
	if a.AllocatedResources == nil {
		return false
	}
	for name, t := range structs.AllocatedFor(tg).Tasks {
		ot := a.AllocatedResources.Tasks[name]
		if ot == nil || ot.Memory != t.Memory {
			return true
		}
		if len(ot.Cpu.ReservedCores) == 0 && ot.Cpu.CpuShares != t.Cpu.CpuShares {
			return true // a task with cores keeps them and their MHz (fixedResources)
		}
	}
	return false
}
