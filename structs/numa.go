package structs

import "fmt"

// NUMA affinities of resources { numa { affinity = ... } }, as Nomad's.
const (
	NUMAAffinityNone    = "none"
	NUMAAffinityPrefer  = "prefer"
	NUMAAffinityRequire = "require"
)

// NUMA is a task's NUMA placement ask (resources.numa). It only matters
// with Resources.Cores: the task's cores on one NUMA node (require), on one
// node when possible and scored lower otherwise (prefer), or anywhere (none).
type NUMA struct {
	Affinity string
}

// Validate checks the affinity is one of none, prefer, require.
func (n *NUMA) Validate() error {
	switch n.Affinity {
	case "", NUMAAffinityNone, NUMAAffinityPrefer, NUMAAffinityRequire:
		return nil
	}
	return fmt.Errorf("numa affinity must be one of %q, %q or %q; got %q",
		NUMAAffinityNone, NUMAAffinityPrefer, NUMAAffinityRequire, n.Affinity)
}

// NodeProcessorResources is the node's CPU topology (Nomad's
// NodeResources.Processors).
type NodeProcessorResources struct {
	Topology *Topology
}

// Topology is the machine's NUMA layout as fingerprinted from sysfs (JSON
// shape of Nomad's numalib.Topology, plus per-node memory).
type Topology struct {
	// Nodes are the NUMA node IDs.
	Nodes []uint8
	// Distances[i][j] is the SLIT distance from Nodes[i] to Nodes[j].
	Distances [][]uint16
	// Cores are the logical CPUs, ordered by ID.
	Cores []Core
	// NodeMemoryMB is each NUMA node's memory (same order as Nodes).
	NodeMemoryMB []int64 `json:",omitempty"`
}

// Core is one logical CPU.
type Core struct {
	SocketID uint8
	NodeID   uint8
	ID       uint16
	// Siblings are the SMT threads sharing this core's physical core
	// (itself included).
	Siblings []uint16 `json:",omitempty"`
	// Disable: not reservable (offline, or in the client's reserved cores).
	Disable    bool
	BaseSpeed  uint64 // MHz
	MaxSpeed   uint64 // MHz
	GuessSpeed bool   // BaseSpeed was not read from cpufreq
}
