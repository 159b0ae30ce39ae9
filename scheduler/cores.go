package scheduler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// Reserved cores (resources { cores = N numa { affinity } }). A task with
// cores gets N concrete core IDs of its node: usable ones
// (structs.Node.UsableCore) that no live allocation of the plan-applied node
// holds. The plan applier's check is structs.AllocsFit's coresFit; this file
// picks cores that pass it. Placement policy, per task in order:
//
//   - the NUMA node with the fewest free cores that still has N (best fit,
//     keeping larger free blocks whole for later asks), for every affinity;
//   - when no NUMA node has N: require fails ("no NUMA node with N free
//     cores"); prefer and none span NUMA nodes, taking from the fullest-free
//     nodes first so the task touches as few as possible;
//   - within a NUMA node, cores of partly used physical cores (SMT siblings)
//     first, then whole physical cores sibling by sibling.
//
// The scorer scorerCores (rank_normalize.go) adds, per placement, the share of the chosen NUMA
// node's free cores the task takes (1: it fills the node exactly, the least
// fragmentation), 0 for a spanning none task, -1 for a spanning prefer task,
// averaged over the group's tasks with cores.

// coreAsk is one task's cores ask.
type coreAsk struct {
	task     string
	cores    int
	affinity string
}

// taskCores is the cores picked for one task, sorted.
type taskCores struct {
	task string
	ids  []uint16
}

// coreAssignment is the cores one placement would hold on a node and what
// they count for in the cpu dimension. The zero value is "no cores asked".
type coreAssignment struct {
	ok    bool
	tasks []taskCores
	mhz   int64   // the node's MHz per core
	score float64 // scorerCores' score
}

// cpuShares is the MHz the assignment's cores count for.
func (ca coreAssignment) cpuShares() int64 {
	var n int64
	for _, t := range ca.tasks {
		n += int64(len(t.ids))
	}
	return n * ca.mhz
}

// coreAsksOf returns the group's cores asks in task order; nil when no task
// asks for cores.
func coreAsksOf(tg *structs.TaskGroup) []coreAsk {
	var out []coreAsk
	for _, t := range tg.Tasks {
		if t.Resources == nil || t.Resources.Cores <= 0 {
			continue
		}
		aff := structs.NUMAAffinityNone
		if t.Resources.NUMA != nil && t.Resources.NUMA.Affinity != "" {
			aff = t.Resources.NUMA.Affinity
		}
		out = append(out, coreAsk{task: t.Name, cores: t.Resources.Cores, affinity: aff})
	}
	return out
}

// numaFree is one NUMA node's free cores in pick order.
type numaFree struct {
	node  uint8
	cores []uint16
}

// freeCores groups the node's usable cores that held does not hold by NUMA
// node (in topology order), each list in pick order: cores whose physical
// core has fewer free SMT siblings first, siblings together, then by ID.
func freeCores(n *structs.Node, held map[uint16]bool) []numaFree {
	t := n.CoreTopology()
	if t == nil {
		return nil
	}
	free := map[uint16]bool{}
	for _, c := range t.Cores {
		if !held[c.ID] && n.UsableCore(c) {
			free[c.ID] = true
		}
	}
	type key struct {
		sib, phys, id int
	}
	keys := map[uint8][]key{}
	for _, c := range t.Cores {
		if !free[c.ID] {
			continue
		}
		k := key{phys: int(c.ID), id: int(c.ID)}
		for _, s := range c.Siblings {
			if free[s] {
				k.sib++
			}
			k.phys = min(k.phys, int(s))
		}
		keys[c.NodeID] = append(keys[c.NodeID], k)
	}
	out := make([]numaFree, 0, len(t.Nodes))
	for _, id := range numaNodes(t) {
		ks := keys[id]
		slices.SortFunc(ks, func(a, b key) int {
			if a.sib != b.sib {
				return a.sib - b.sib
			}
			if a.phys != b.phys {
				return a.phys - b.phys
			}
			return a.id - b.id
		})
		nf := numaFree{node: id, cores: make([]uint16, len(ks))}
		for i, k := range ks {
			nf.cores[i] = uint16(k.id)
		}
		out = append(out, nf)
	}
	return out
}

// numaNodes returns the topology's NUMA node IDs: Nodes, or the cores' node
// IDs when Nodes is empty.
func numaNodes(t *structs.Topology) []uint8 {
	if len(t.Nodes) > 0 {
		return t.Nodes
	}
	var ids []uint8
	for _, c := range t.Cores {
		if !slices.Contains(ids, c.NodeID) {
			ids = append(ids, c.NodeID)
		}
	}
	slices.Sort(ids)
	return ids
}

// pickCores assigns cores to every ask from free (which it consumes). dim
// is "" on success, else the failing dimension: structs.DimCores when the
// node has too few free cores, structs.DimNUMA(N) when a require ask finds
// no NUMA node with N.
func pickCores(free []numaFree, asks []coreAsk) (tasks []taskCores, score float64, dim string) {
	tasks = make([]taskCores, 0, len(asks))
	for _, a := range asks {
		ids, s, dim := pickTask(free, a)
		if dim != "" {
			return nil, 0, dim
		}
		slices.Sort(ids)
		tasks = append(tasks, taskCores{task: a.task, ids: ids})
		score += s
	}
	return tasks, score / float64(max(len(asks), 1)), ""
}

// pickTask picks one ask's cores from free (removing them) and returns its
// score, or the failing dimension.
func pickTask(free []numaFree, a coreAsk) (ids []uint16, score float64, dim string) {
	total := 0
	best := -1
	for i, f := range free {
		total += len(f.cores)
		if len(f.cores) >= a.cores && (best < 0 || len(f.cores) < len(free[best].cores)) {
			best = i
		}
	}
	switch {
	case total < a.cores:
		return nil, 0, structs.DimCores
	case best >= 0:
		score = float64(a.cores) / float64(len(free[best].cores))
		return take(&free[best], a.cores), score, ""
	case a.affinity == structs.NUMAAffinityRequire:
		return nil, 0, structs.DimNUMA(a.cores)
	}
	order := make([]int, len(free))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return len(free[y].cores) - len(free[x].cores) })
	for _, i := range order {
		ids = append(ids, take(&free[i], min(a.cores-len(ids), len(free[i].cores)))...)
	}
	if a.affinity == structs.NUMAAffinityPrefer {
		score = -1
	}
	return ids, score, ""
}

// take removes and returns the first n cores of f.
func take(f *numaFree, n int) []uint16 {
	ids := append([]uint16(nil), f.cores[:n]...)
	f.cores = f.cores[n:]
	return ids
}

// heldCores returns the cores held on the node once the plan so far is
// applied, as usedPorts does for ports; allocations in skip (the ones a
// preemption would evict) do not count. The map is the context's scratch
// map, valid until the next call.
func (c *evalContext) heldCores(n *structs.Node, skip []*structs.Allocation) (map[uint16]bool, error) {
	existing, err := c.stateAllocs(n.ID)
	if err != nil {
		return nil, err
	}
	if c.coreScratch == nil {
		c.coreScratch = map[uint16]bool{}
	}
	held := c.coreScratch
	clear(held)
	stops, evicts, placed := c.plan.NodeUpdate[n.ID], c.plan.NodePreemptions[n.ID], c.plan.NodeAllocation[n.ID]
	for _, a := range existing {
		if a.TerminalStatus() || hasAlloc(stops, a.ID) || hasAlloc(evicts, a.ID) || hasAlloc(placed, a.ID) || hasAlloc(skip, a.ID) {
			continue
		}
		structs.AddHeldCores(held, a)
	}
	for _, a := range placed {
		if !a.TerminalStatus() && !hasAlloc(skip, a.ID) {
			structs.AddHeldCores(held, a)
		}
	}
	return held, nil
}

// assignCores picks the cores of asks on node n with the plan so far (skip:
// allocations to treat as gone). dim is "" on success, else the failing
// dimension.
func (c *evalContext) assignCores(n *structs.Node, asks []coreAsk, skip []*structs.Allocation) (coreAssignment, string, error) {
	held, err := c.heldCores(n, skip)
	if err != nil {
		return coreAssignment{}, "", err
	}
	tasks, score, dim := pickCores(freeCores(n, held), asks)
	if dim != "" {
		return coreAssignment{}, dim, nil
	}
	return coreAssignment{ok: true, tasks: tasks, mhz: n.MHzPerCore(), score: score}, "", nil
}

// withCores gives a new allocation the cores its ranked node was assigned:
// each task's ReservedCores, and as CpuShares the cores' MHz.
func withCores(a *structs.Allocation, ca coreAssignment) *structs.Allocation {
	if !ca.ok || a.AllocatedResources == nil {
		return a
	}
	for _, t := range ca.tasks {
		if at := a.AllocatedResources.Tasks[t.task]; at != nil {
			at.Cpu.ReservedCores = t.ids
			at.Cpu.CpuShares = structs.SatMul(int64(len(t.ids)), ca.mhz)
		}
	}
	return a
}

// coresCPU is the MHz asks' cores count for on node n.
func coresCPU(n *structs.Node, asks []coreAsk) int64 {
	var total int64
	for _, a := range asks {
		total = structs.SatAdd(total, int64(a.cores))
	}
	return structs.SatMul(total, n.MHzPerCore())
}

// explainCores says why the group's cores do not fit on the node with the
// plan so far: "cores: asks 4, 2 free of 16" when the node lacks cores,
// "numa: no NUMA node with 4 free cores (free per NUMA node: 0:3, 1:3)" when
// a require ask finds none.
func explainCores(ctx *evalContext, n *structs.Node, tg *structs.TaskGroup) ([]string, error) {
	asks := coreAsksOf(tg)
	if len(asks) == 0 {
		return nil, nil
	}
	held, err := ctx.heldCores(n, nil)
	if err != nil {
		return nil, err
	}
	free := freeCores(n, held)
	usable, nfree, want := 0, 0, 0
	perNode := make([]string, len(free))
	for i, f := range free {
		nfree += len(f.cores)
		perNode[i] = fmt.Sprintf("%d:%d", f.node, len(f.cores))
	}
	if t := n.CoreTopology(); t != nil {
		for _, c := range t.Cores {
			if n.UsableCore(c) {
				usable++
			}
		}
	}
	for _, a := range asks {
		want += a.cores
	}
	if want > nfree {
		return []string{fmt.Sprintf("%s: asks %d, %d free of %d", structs.DimCores, want, nfree, usable)}, nil
	}
	if _, _, dim := pickCores(free, asks); dim != "" {
		return []string{fmt.Sprintf("%s (free per NUMA node: %s)", dim, strings.Join(perNode, ", "))}, nil
	}
	return nil, nil
}
