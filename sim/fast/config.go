// Package fast is the simulator's fast mode (`nomadish sim run`): the
// production scheduler package and the plan applier's fit check on the
// production in-memory state store, driven by a discrete-event loop over
// a simulated clock. A run is deterministic for a seed.
package fast

import (
	"errors"
	"fmt"
	"time"

	"github.com/nomadish/nomadish/sim/cluster"
	"github.com/nomadish/nomadish/sim/trace"
	"github.com/nomadish/nomadish/structs"
)

// ErrBadConfig prefixes every Config validation error.
var ErrBadConfig = errors.New("fast: bad config")

// Costs model the simulated time the server spends, so that workers
// overlap and plans conflict as on a real server. They are constants: a
// run does not read the wall clock for any decision.
type Costs struct {
	// Eval is a scheduler pass's fixed cost (snapshot, reconcile).
	Eval time.Duration `json:"eval"`
	// Placement is the cost of each placement in a plan.
	Placement time.Duration `json:"placement"`
	// Node is the cost of each node a placement evaluated
	// (AllocMetric.NodesEvaluated).
	Node time.Duration `json:"node"`
	// Apply is the plan applier's time per plan (fit check and raft
	// commit); plans queue behind each other.
	Apply time.Duration `json:"apply"`
}

// DefaultCosts are in the range a real server measures: ~1 ms per eval,
// 20 µs per placement, 1 µs per node scored, 2 ms per plan commit.
func DefaultCosts() Costs {
	return Costs{Eval: time.Millisecond, Placement: 20 * time.Microsecond, Node: time.Microsecond, Apply: 2 * time.Millisecond}
}

// Config is one run.
type Config struct {
	// Cluster is the cluster's shape; Trace the workload.
	Cluster cluster.Spec
	Trace   *trace.Trace
	// Duration is the simulated time covered (0: 24h).
	Duration time.Duration
	// Workers is how many scheduler workers run at once (0: 1).
	Workers int
	// Seed makes the run repeatable (cluster IDs, node failures).
	Seed uint64
	// Algorithm is "binpack" (default) or "spread".
	Algorithm string
	// Preemption turns preemption on for service and batch jobs.
	Preemption bool
	// Costs model scheduling and plan-apply time (all zero: DefaultCosts).
	Costs Costs
	// StartDelay is from an allocation's commit to its running (default 1s).
	StartDelay time.Duration
	// NodeFailures is the expected failures per node per day (0: none);
	// a failed node stays down NodeDowntime (default 10m), then returns.
	NodeFailures float64
	NodeDowntime time.Duration
	// SampleEvery is the utilization sampling period (default 1m).
	SampleEvery time.Duration
	// PreferenceScoreLimit is passed to the scheduler (0: its default).
	PreferenceScoreLimit int
}

// DefaultConfig is a one-worker bin-packing run of 24 h.
func DefaultConfig() Config {
	return Config{Duration: 24 * time.Hour, Workers: 1, Algorithm: structs.SchedulerAlgorithmBinpack,
		Costs: DefaultCosts(), StartDelay: time.Second, NodeDowntime: 10 * time.Minute, SampleEvery: time.Minute}
}

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Duration == 0 {
		c.Duration = d.Duration
	}
	if c.Workers == 0 {
		c.Workers = d.Workers
	}
	if c.Algorithm == "" {
		c.Algorithm = d.Algorithm
	}
	if c.Costs == (Costs{}) {
		c.Costs = d.Costs
	}
	if c.StartDelay == 0 {
		c.StartDelay = d.StartDelay
	}
	if c.NodeDowntime == 0 {
		c.NodeDowntime = d.NodeDowntime
	}
	if c.SampleEvery == 0 {
		c.SampleEvery = d.SampleEvery
	}
	return c
}

// Validate names the first bad field.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Trace == nil:
		return fmt.Errorf("%w: no trace", ErrBadConfig)
	case c.Duration < 0:
		return fmt.Errorf("%w: duration %s is negative", ErrBadConfig, c.Duration)
	case c.Workers < 1 || c.Workers > 1024:
		return fmt.Errorf("%w: workers = %d, want 1-1024", ErrBadConfig, c.Workers)
	case c.Algorithm != structs.SchedulerAlgorithmBinpack && c.Algorithm != structs.SchedulerAlgorithmSpread:
		return fmt.Errorf("%w: algorithm %q, want binpack or spread", ErrBadConfig, c.Algorithm)
	case c.Costs.Eval < 0 || c.Costs.Placement < 0 || c.Costs.Node < 0 || c.Costs.Apply < 0:
		return fmt.Errorf("%w: negative cost %+v", ErrBadConfig, c.Costs)
	case c.NodeFailures < 0:
		return fmt.Errorf("%w: node failures %g per node per day is negative", ErrBadConfig, c.NodeFailures)
	case c.StartDelay < 0 || c.NodeDowntime < 0 || c.SampleEvery < 0:
		return fmt.Errorf("%w: negative start delay, node downtime or sample period", ErrBadConfig)
	}
	if err := c.Cluster.Validate(); err != nil {
		return fmt.Errorf("%w: cluster: %w", ErrBadConfig, err)
	}
	for i, j := range c.Trace.Jobs {
		if err := checkJob(j); err != nil {
			return fmt.Errorf("%w: trace job %d (%q): %w", ErrBadConfig, i, j.ID, err)
		}
	}
	return nil
}
