package structs

import "fmt"

// NodeVerdict is one node's whole answer to "why not there?" for one task
// group: every feasibility check that failed (not just the first, as the
// AllocMetric of an ordinary placement records), every resource dimension
// that lacks room, with numbers, and the scores the node would get. The
// scheduler computes it only when asked (scheduler.ExplainNode; `job plan
// -why-not-node`), so ordinary placements keep the cheap AllocMetric.
type NodeVerdict struct {
	NodeID   string
	NodeName string
	// Feasible is true when every feasibility check passed.
	Feasible bool
	// Fits is true when the group's ask fits next to what the node holds.
	Fits bool
	// Failures lists every failed feasibility check, in checker order.
	Failures []string
	// Exhausted lists every dimension without room, with numbers, e.g.
	// "memory: asks 6000 MB, 2048 MB free of 32000 MB".
	Exhausted []string
	// Scores are the node's scores by scorer, plus "final" (normalized),
	// when it is feasible and fits; nil otherwise.
	Scores map[string]float64
	// Preemptions (extension) lists, when the node is feasible but lacks
	// room and preemption is enabled for the job's type, the allocations
	// whose eviction would make room: "<alloc name> (job <id>, priority N)".
	Preemptions []string `json:",omitempty"`
}

// Placeable reports whether the group could be placed on the node.
func (v *NodeVerdict) Placeable() bool { return v.Feasible && v.Fits }

// Dimension is one resource dimension of ComparableResources, for
// explanations: its name (as AllocMetric.DimensionExhausted counts it), unit
// and value.
type Dimension struct {
	Name  string
	Unit  string
	Value int64
}

// Dimensions lists every dimension of c, in the order Superset checks them.
// A field added to ComparableResources must be added here too (a test holds
// the two together), so that explanations name every dimension.
func (c ComparableResources) Dimensions() []Dimension {
	return []Dimension{
		{Name: "cpu", Unit: "MHz", Value: c.CpuShares},
		{Name: "memory", Unit: "MB", Value: c.MemoryMB},
		{Name: "disk", Unit: "MB", Value: c.DiskMB},
	}
}

// ExhaustedDimensions compares ask with what is free on a node (capacity
// minus used, where used does not include ask) and describes every
// dimension where ask does not fit, e.g.
// "memory: asks 6000 MB, 2048 MB free of 32000 MB".
func ExhaustedDimensions(capacity, used, ask ComparableResources) []string {
	var out []string
	caps, useds, asks := capacity.Dimensions(), used.Dimensions(), ask.Dimensions()
	for i, d := range asks {
		free := SatSub(caps[i].Value, useds[i].Value)
		if d.Value > free {
			out = append(out, fmt.Sprintf("%s: asks %d %s, %d %s free of %d %s",
				d.Name, d.Value, d.Unit, max(free, 0), d.Unit, caps[i].Value, d.Unit))
		}
	}
	return out
}
