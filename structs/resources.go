package structs

import "fmt"

// Resource defaults, as in Nomad.
const (
	DefaultCPU      = 100 // MHz
	DefaultMemoryMB = 300
	MinCPU          = 1
	MinMemoryMB     = 10
)

// Resources is what a task asks for.
type Resources struct {
	CPU         int
	Cores       int
	MemoryMB    int
	MemoryMaxMB int
	DiskMB      int
	// NUMA is the placement ask for Cores (numa.go); nil means "none".
	NUMA *NUMA `json:",omitempty"`
}

// DefaultResources returns Nomad's task defaults.
func DefaultResources() *Resources {
	return &Resources{CPU: DefaultCPU, MemoryMB: DefaultMemoryMB}
}

// Canonicalize fills zero values with defaults.
func (r *Resources) Canonicalize() {
	if r.CPU == 0 && r.Cores == 0 {
		r.CPU = DefaultCPU
	}
	if r.MemoryMB == 0 {
		r.MemoryMB = DefaultMemoryMB
	}
}

// Validate checks the ask is sensible: no negative amount, none over the
// ceilings of validate_bounds.go (MaxCPU, MaxCores, MaxMemoryMB, MaxDiskMB),
// each error naming the field.
func (r *Resources) Validate() error {
	var errs MultiError
	if r.CPU < 0 || r.Cores < 0 {
		errs.Add(fmt.Errorf("cpu and cores can't be negative"))
	}
	r.validateCeilings(&errs)
	if r.CPU > 0 && r.Cores > 0 {
		errs.Add(fmt.Errorf("only one of cpu or cores may be set"))
	}
	if r.MemoryMB < MinMemoryMB {
		errs.Add(fmt.Errorf("minimum memory value is %d; got %d", MinMemoryMB, r.MemoryMB))
	}
	if r.MemoryMaxMB != 0 && r.MemoryMaxMB < r.MemoryMB {
		errs.Add(fmt.Errorf("memory_max (%d) must be at least memory (%d)", r.MemoryMaxMB, r.MemoryMB))
	}
	if r.DiskMB < 0 {
		errs.Add(fmt.Errorf("disk can't be negative"))
	}
	if r.NUMA != nil {
		if err := r.NUMA.Validate(); err != nil {
			errs.Add(err)
		}
		if r.Cores == 0 && r.NUMA.Affinity != "" && r.NUMA.Affinity != NUMAAffinityNone {
			errs.Add(fmt.Errorf("numa affinity %q needs cores: a numa block only applies to resources with cores set", r.NUMA.Affinity))
		}
	}
	return errs.ErrorOrNil()
}

// validateCeilings adds an error for each field over its ceiling.
func (r *Resources) validateCeilings(errs *MultiError) {
	for _, f := range []struct {
		name, unit string
		v, max     int
	}{
		{"cpu", " MHz", r.CPU, MaxCPU}, {"cores", "", r.Cores, MaxCores},
		{"memory", " MB", r.MemoryMB, MaxMemoryMB}, {"memory_max", " MB", r.MemoryMaxMB, MaxMemoryMB},
		{"disk", " MB", r.DiskMB, MaxDiskMB},
	} {
		if f.v > f.max {
			errs.Add(fmt.Errorf("%s %d%s is over the limit of %d%s", f.name, f.v, f.unit, f.max, f.unit))
		}
	}
}

// NodeResources is what a node offers (JSON shape of Nomad's NodeResources).
type NodeResources struct {
	Cpu        NodeCpuResources
	Processors NodeProcessorResources // the CPU topology (numa.go); nil Topology: see Node.CoreTopology
	Memory     NodeMemoryResources
	Disk       NodeDiskResources
	Networks   []*NetworkResource // the node's addresses (network.go)
	// NodeNetworks are the node's interfaces, host networks and the bridge
	// mode when the client offers it (network.go).
	NodeNetworks []*NodeNetworkResource

	// MinDynamicPort and MaxDynamicPort bound the dynamic ports (0: Nomad's
	// default 20000-32000; Node.DynamicPortRange).
	MinDynamicPort int
	MaxDynamicPort int
}

// NodeCpuResources describes a node's CPU.
type NodeCpuResources struct {
	CpuShares          int64 // total MHz
	TotalCpuCores      uint16
	ReservableCpuCores []uint16
}

// NodeMemoryResources describes a node's memory.
type NodeMemoryResources struct{ MemoryMB int64 }

// NodeDiskResources describes a node's disk.
type NodeDiskResources struct{ DiskMB int64 }

// NodeReservedResources is what the operator keeps back from scheduling.
type NodeReservedResources struct {
	Cpu      NodeReservedCpuResources
	Memory   NodeReservedMemoryResources
	Disk     NodeReservedDiskResources
	Networks NodeReservedNetworkResources
}

// NodeReservedCpuResources is reserved CPU.
type NodeReservedCpuResources struct {
	CpuShares        int64
	ReservedCpuCores []uint16
}

// NodeReservedMemoryResources is reserved memory.
type NodeReservedMemoryResources struct{ MemoryMB int64 }

// NodeReservedDiskResources is reserved disk.
type NodeReservedDiskResources struct{ DiskMB int64 }

// AllocatedResources is what an allocation holds on its node.
type AllocatedResources struct {
	Tasks  map[string]*AllocatedTaskResources
	Shared AllocatedSharedResources
}

// AllocatedTaskResources is one task's share.
type AllocatedTaskResources struct {
	Cpu    AllocatedCpuResources
	Memory AllocatedMemoryResources
}

// AllocatedCpuResources is a task's CPU.
type AllocatedCpuResources struct {
	CpuShares     int64
	ReservedCores []uint16
}

// AllocatedMemoryResources is a task's memory.
type AllocatedMemoryResources struct {
	MemoryMB    int64
	MemoryMaxMB int64
}

// AllocatedSharedResources is shared by the group's tasks.
type AllocatedSharedResources struct {
	DiskMB   int64
	Networks []*NetworkResource     // the group's networks with the host ports chosen
	Ports    []AllocatedPortMapping // the host ports held (network.go)
}

// ComparableResources is a flat view used to add, subtract and compare.
type ComparableResources struct {
	CpuShares int64
	MemoryMB  int64
	DiskMB    int64
}

// Add adds o to c, saturating (saturate.go): a sum never wraps around.
func (c *ComparableResources) Add(o ComparableResources) {
	c.CpuShares = SatAdd(c.CpuShares, o.CpuShares)
	c.MemoryMB = SatAdd(c.MemoryMB, o.MemoryMB)
	c.DiskMB = SatAdd(c.DiskMB, o.DiskMB)
}

// Subtract subtracts o from c, saturating (saturate.go).
func (c *ComparableResources) Subtract(o ComparableResources) {
	c.CpuShares = SatSub(c.CpuShares, o.CpuShares)
	c.MemoryMB = SatSub(c.MemoryMB, o.MemoryMB)
	c.DiskMB = SatSub(c.DiskMB, o.DiskMB)
}

// Superset reports whether c holds all of o; if not, it names the first
// dimension exhausted ("cpu", "memory", "disk").
func (c ComparableResources) Superset(o ComparableResources) (bool, string) {
	if c.CpuShares < o.CpuShares {
		return false, "cpu"
	}
	if c.MemoryMB < o.MemoryMB {
		return false, "memory"
	}
	if c.DiskMB < o.DiskMB {
		return false, "disk"
	}
	return true, ""
}

// Comparable flattens allocated resources. The sums saturate, and a
// negative amount counts as 0, so an allocation can never make a node look
// emptier than it is.
func (a *AllocatedResources) Comparable() ComparableResources {
	var c ComparableResources
	if a == nil {
		return c
	}
	for _, t := range a.Tasks {
		if t == nil {
			continue
		}
		c.CpuShares = SatAdd(c.CpuShares, nonNeg(t.Cpu.CpuShares))
		c.MemoryMB = SatAdd(c.MemoryMB, nonNeg(t.Memory.MemoryMB))
	}
	c.DiskMB = SatAdd(c.DiskMB, nonNeg(a.Shared.DiskMB))
	return c
}

// Comparable flattens a node's resources minus its reserved ones.
func (n *Node) Comparable() ComparableResources {
	c := ComparableResources{}
	if n.NodeResources != nil {
		c.CpuShares = n.NodeResources.Cpu.CpuShares
		c.MemoryMB = n.NodeResources.Memory.MemoryMB
		c.DiskMB = n.NodeResources.Disk.DiskMB
	}
	if r := n.ReservedResources; r != nil {
		c.Subtract(ComparableResources{CpuShares: r.Cpu.CpuShares, MemoryMB: r.Memory.MemoryMB, DiskMB: r.Disk.DiskMB})
	}
	return c
}

// AllocatedFor converts a group's asks into what an allocation holds: its
// tasks' CPU and memory, and as shared disk the tasks' disk plus the group's
// ephemeral disk.
func AllocatedFor(tg *TaskGroup) *AllocatedResources {
	ar := &AllocatedResources{Tasks: make(map[string]*AllocatedTaskResources, len(tg.Tasks))}
	for _, t := range tg.Tasks {
		r := t.Resources
		if r == nil {
			r = DefaultResources()
		}
		ar.Tasks[t.Name] = &AllocatedTaskResources{
			Cpu:    AllocatedCpuResources{CpuShares: int64(r.CPU)},
			Memory: AllocatedMemoryResources{MemoryMB: int64(r.MemoryMB), MemoryMaxMB: int64(r.MemoryMaxMB)},
		}
		ar.Shared.DiskMB = SatAdd(ar.Shared.DiskMB, int64(r.DiskMB))
	}
	if tg.EphemeralDisk != nil {
		ar.Shared.DiskMB = SatAdd(ar.Shared.DiskMB, int64(tg.EphemeralDisk.SizeMB))
	}
	if tg.HasNetworks() { // the asks; the scheduler fills in the host ports
		ar.Shared.Networks = tg.Networks
	}
	return ar
}
