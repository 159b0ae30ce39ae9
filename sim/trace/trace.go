// Package trace is a simulation's workload: jobs arriving over time, each
// with its type, priority, count, per-allocation size and run time. Traces
// are read from JSON or CSV files (Read) or generated from published
// cluster-trace statistics (Generate).
package trace

import "time"

// Job is one job of a trace: it is registered at Arrival and each of its
// Count allocations runs for Duration once placed (0: until the end of
// the simulation, as a service does).
type Job struct {
	// Arrival is when the job is submitted, from the trace's start.
	Arrival time.Duration `json:"arrival"`
	// ID is unique within the trace.
	ID string `json:"id"`
	// Type is "service" or "batch" (the scheduler's job types).
	Type string `json:"type"`
	// Priority is 1-100, as a Nomad job's.
	Priority int `json:"priority"`
	// Count is the number of allocations (one task group).
	Count int `json:"count"`
	// CPU is MHz per allocation; with Cores set it is ignored (the cores'
	// MHz count instead), as Nomad's cores.
	CPU int `json:"cpu,omitempty"`
	// MemoryMB is memory per allocation.
	MemoryMB int `json:"memory_mb"`
	// Cores is whole cores per allocation (0: none).
	Cores int `json:"cores,omitempty"`
	// NUMA is the cores' NUMA affinity: "", "none", "prefer" or "require".
	NUMA string `json:"numa,omitempty"`
	// Duration is how long each allocation runs once placed; 0 is forever.
	Duration time.Duration `json:"duration,omitempty"`
	// Constraints are the group's constraints.
	Constraints []Constraint `json:"constraints,omitempty"`
	// Spread is the group's spread, if any.
	Spread []Spread `json:"spread,omitempty"`
}

// Constraint is a job constraint, as in a job file: attribute ("${node.class}",
// "${meta.rack}"), operator ("=", "!=", "regexp", "distinct_hosts"...) and value.
type Constraint struct {
	Attribute string `json:"attribute"`
	Operator  string `json:"operator,omitempty"`
	Value     string `json:"value,omitempty"`
}

// Spread spreads a group's allocations over an attribute's values.
type Spread struct {
	Attribute string `json:"attribute"`
	Weight    int    `json:"weight,omitempty"`
}

// Trace is a workload: its jobs ordered by Arrival.
type Trace struct {
	// Source names where it came from: a file path or "google2019 seed 7".
	Source string `json:"source"`
	Jobs   []Job  `json:"jobs"`
}
