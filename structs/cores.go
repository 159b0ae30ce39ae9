package structs

import "fmt"

// Dimensions of the cores check (AllocMetric.DimensionExhausted keys and
// plan applier reasons).
const (
	// DimCores: the node has fewer free cores than the ask.
	DimCores = "cores"
	// DimCoreCollision: allocations hold one core twice, or a core the node
	// does not offer (reserved, disabled or absent).
	DimCoreCollision = "cores: reserved core collision"
)

// DimNUMA is the dimension of a require ask no NUMA node has room for while
// the node as a whole has: "no NUMA node with 4 free cores".
func DimNUMA(cores int) string {
	return fmt.Sprintf("numa: no NUMA node with %d free cores", cores)
}

// CoreTopology returns the node's CPU topology: the fingerprinted one, or,
// for a node without one, a single NUMA node 0 holding
// NodeResources.Cpu.ReservableCpuCores (so nodes that predate topology
// fingerprinting still offer their cores). The result is shared; callers
// must not modify it. Nil for a node without NodeResources.
func (n *Node) CoreTopology() *Topology {
	if n.NodeResources == nil {
		return nil
	}
	if t := n.NodeResources.Processors.Topology; t != nil {
		return t
	}
	cores := n.NodeResources.Cpu.ReservableCpuCores
	t := &Topology{Nodes: []uint8{0}, Distances: [][]uint16{{10}}, Cores: make([]Core, len(cores))}
	for i, id := range cores {
		t.Cores[i] = Core{ID: id, Siblings: []uint16{id}}
	}
	return t
}

// UsableCore reports whether the scheduler may reserve core id on the node:
// the topology has it, it is not disabled, not in the operator's reserved
// cores and, when the node lists reservable cores, among them.
func (n *Node) UsableCore(c Core) bool {
	if c.Disable || n.NodeResources == nil {
		return false
	}
	if r := n.ReservedResources; r != nil && containsCore(r.Cpu.ReservedCpuCores, c.ID) {
		return false
	}
	if rc := n.NodeResources.Cpu.ReservableCpuCores; len(rc) > 0 {
		return containsCore(rc, c.ID)
	}
	return true
}

// MHzPerCore is what one reserved core counts for in the cpu dimension
// (Nomad's rule: a task's cores count as cores x the node's per-core
// share): the node's CpuShares over its cores, else the topology's base
// speed.
func (n *Node) MHzPerCore() int64 {
	if n.NodeResources == nil {
		return 0
	}
	cpu := n.NodeResources.Cpu
	if cpu.TotalCpuCores > 0 {
		return cpu.CpuShares / int64(cpu.TotalCpuCores)
	}
	if t := n.NodeResources.Processors.Topology; t != nil && len(t.Cores) > 0 {
		if t.Cores[0].BaseSpeed > 0 {
			return int64(t.Cores[0].BaseSpeed)
		}
		return cpu.CpuShares / int64(len(t.Cores))
	}
	if k := len(cpu.ReservableCpuCores); k > 0 {
		return cpu.CpuShares / int64(k)
	}
	return 0
}

func containsCore(ids []uint16, id uint16) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// coresFit reports whether the non-terminal allocations' reserved cores are
// distinct and each one usable on the node (UsableCore). Allocations
// without cores cost a loop over their tasks: a cluster without cores asks
// builds nothing.
func coresFit(node *Node, allocs []*Allocation) bool {
	var held map[uint16]bool // nil until some alloc holds a core
	for _, a := range allocs {
		if a.TerminalStatus() || a.AllocatedResources == nil || !holdsCores(a) {
			continue
		}
		if held == nil {
			held = map[uint16]bool{}
		}
		if !AddHeldCores(held, a) {
			return false
		}
	}
	if held == nil {
		return true
	}
	usable := usableCores(node)
	for id := range held {
		if !usable[id] {
			return false
		}
	}
	return true
}

func holdsCores(a *Allocation) bool {
	for _, t := range a.AllocatedResources.Tasks {
		if len(t.Cpu.ReservedCores) > 0 {
			return true
		}
	}
	return false
}

// AddHeldCores adds the allocation's reserved cores to held (the cores
// already taken on its node) and reports whether they were all free: the
// cores rule of the one fit check (AllocsFit, which also requires each
// core be usable on the node), shared by the scheduler's core assignment.
// The caller skips terminal allocations.
func AddHeldCores(held map[uint16]bool, a *Allocation) (free bool) {
	if a.AllocatedResources == nil {
		return true
	}
	free = true
	for _, t := range a.AllocatedResources.Tasks {
		for _, id := range t.Cpu.ReservedCores {
			if held[id] {
				free = false
			}
			held[id] = true
		}
	}
	return free
}

// usableCores is the set of cores UsableCore accepts.
func usableCores(node *Node) map[uint16]bool {
	out := map[uint16]bool{}
	t := node.CoreTopology()
	if t == nil {
		return out
	}
	for _, c := range t.Cores {
		if node.UsableCore(c) {
			out[c.ID] = true
		}
	}
	return out
}

// HoldsPortsOrCores reports whether the live allocation holds host ports or
// reserved cores: what AllocsFit checks beyond the cpu, memory and disk sums.
// A plan placing none such on a node needs only the sums there.
func (a *Allocation) HoldsPortsOrCores() bool {
	if a.TerminalStatus() || a.AllocatedResources == nil {
		return false
	}
	return len(a.AllocatedResources.Shared.Ports) > 0 || holdsCores(a)
}
