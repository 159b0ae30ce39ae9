// Package report is what a simulation measured: Report (printed as JSON by
// `sim run -json` and `sim cluster -json`), rendered as a self-contained
// HTML page with SVG plots (no network needed to view it), and the deltas
// between two runs on the same trace.
package report

import "time"

// Report is one simulation run's measurements. Fast mode fills every
// field it can; full mode fills Mode, Config, Placements, Throughput,
// Server and the latencies.
type Report struct {
	// Mode is "fast" or "full".
	Mode string `json:"mode"`
	// Config describes the run (trace, cluster, workers, algorithm,
	// preemption, seed), as key/value pairs to show and compare.
	Config map[string]string `json:"config"`
	// SimulatedTime is the cluster time covered; WallTime what it took.
	SimulatedTime time.Duration `json:"simulated_time"`
	WallTime      time.Duration `json:"wall_time"`

	// Jobs, Placements, Rejections (placements that found no node),
	// Preemptions and Evictions (allocations stopped by node failures)
	// are totals over the run.
	Jobs        int `json:"jobs"`
	Placements  int `json:"placements"`
	Rejections  int `json:"rejections"`
	Preemptions int `json:"preemptions"`
	Evictions   int `json:"evictions"`
	// PlanConflicts counts plans the applier partly rejected; Retries the
	// scheduler passes that followed; both per worker count in Workers.
	PlanConflicts int `json:"plan_conflicts"`
	Retries       int `json:"retries"`
	Workers       int `json:"workers"`
	// Evals counts evaluations processed (scheduler passes, a blocked
	// eval released and run again counting again; fast mode).
	Evals int `json:"evals,omitempty"`
	// BlockedEvalsPeak is the most blocked evaluations at one time.
	BlockedEvalsPeak int `json:"blocked_evals_peak"`

	// Utilization is sampled over simulated time.
	Utilization []Sample `json:"utilization"`
	// AtFirstRejection is the utilization when the first placement
	// failed for lack of room (nil if none did).
	AtFirstRejection *Sample `json:"at_first_rejection,omitempty"`

	// QueueDelay is from a job's arrival to its evaluation's dequeue;
	// PlacementLatency from arrival to its allocations committed.
	QueueDelay       Percentiles `json:"queue_delay"`
	PlacementLatency Percentiles `json:"placement_latency"`

	// Throughput is placements per second over wall time (full mode) or
	// simulated time (fast mode), sampled as the cluster fills.
	Throughput []Rate `json:"throughput,omitempty"`
	// Server is the measured server (full mode).
	Server *ServerStats `json:"server,omitempty"`

	// WorkerSweep is the same trace and cluster run once per worker
	// count (`sim run -workers 1,2,4,8`), in the order given: what
	// optimistic concurrency costs in conflicts and buys in queueing.
	WorkerSweep []WorkerPoint `json:"worker_sweep,omitempty"`
}

// WorkerPoint is one run of a worker sweep.
type WorkerPoint struct {
	Workers          int         `json:"workers"`
	PlanConflicts    int         `json:"plan_conflicts"`
	Retries          int         `json:"retries"`
	QueueDelay       Percentiles `json:"queue_delay"`
	PlacementLatency Percentiles `json:"placement_latency"`
}

// PointOf is r's row in a worker sweep.
func PointOf(r *Report) WorkerPoint {
	return WorkerPoint{Workers: r.Workers, PlanConflicts: r.PlanConflicts, Retries: r.Retries,
		QueueDelay: r.QueueDelay, PlacementLatency: r.PlacementLatency}
}

// Sample is the cluster's utilization at one simulated time: the share
// (0-1) of cpu, memory and cores allocated, the cores free but unusable
// for the workload's NUMA "require" asks (stranded), and live counts.
type Sample struct {
	Time           time.Duration `json:"time"`
	CPU            float64       `json:"cpu"`
	Memory         float64       `json:"memory"`
	Cores          float64       `json:"cores"`
	StrandedCores  int           `json:"stranded_cores"`
	RunningAllocs  int           `json:"running_allocs"`
	PendingAllocs  int           `json:"pending_allocs"`
	BlockedEvals   int           `json:"blocked_evals"`
	NodesAvailable int           `json:"nodes_available"`
}

// Percentiles of a latency distribution.
type Percentiles struct {
	Count int           `json:"count"`
	P50   time.Duration `json:"p50"`
	P90   time.Duration `json:"p90"`
	P99   time.Duration `json:"p99"`
	Max   time.Duration `json:"max"`
}

// Rate is placements per second at a point of the run.
type Rate struct {
	// At is when (wall time in full mode, simulated time in fast mode).
	At time.Duration `json:"at"`
	// Placed is the running total then.
	Placed int `json:"placed"`
	// PerSecond over the interval before At.
	PerSecond float64 `json:"per_second"`
}

// ServerStats is the real server measured in full mode.
type ServerStats struct {
	Servers          int     `json:"servers"`
	Nodes            int     `json:"nodes"`
	RSSBytes         uint64  `json:"rss_bytes"`
	RSSPer100kAllocs uint64  `json:"rss_per_100k_allocs"`
	RaftLogBytes     int64   `json:"raft_log_bytes"`
	SnapshotBytes    int64   `json:"snapshot_bytes"`
	HeartbeatsPerSec float64 `json:"heartbeats_per_sec"`
	// CPUSeconds is the leader's CPU time (user and system) from the nodes
	// registered to the end: steadier than wall time on a shared machine.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	// Profile names where the time went (top functions by CPU).
	Profile []string `json:"profile,omitempty"`
}
