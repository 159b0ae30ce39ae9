package gc

import "time"

// Nomad's defaults (agent configuration, server block).
const (
	DefaultInterval            = 5 * time.Minute
	DefaultJobThreshold        = 4 * time.Hour
	DefaultEvalThreshold       = time.Hour
	DefaultBatchEvalThreshold  = 24 * time.Hour
	DefaultDeploymentThreshold = time.Hour
	DefaultNodeThreshold       = 24 * time.Hour
	// DefaultBatchSize bounds the objects named in one raft entry.
	DefaultBatchSize = 2048
)

// Thresholds are how long an object must have been finished before it is
// collected. Zero collects everything finished (a forced collection).
type Thresholds struct {
	Job        time.Duration // a dead job, with its evals, allocs and deployments
	Eval       time.Duration // a terminal evaluation and its terminal allocations
	BatchEval  time.Duration // the same for batch jobs' evaluations
	Deployment time.Duration // a terminal deployment
	Node       time.Duration // a down node
}

// DefaultThresholds are Nomad's.
func DefaultThresholds() Thresholds {
	return Thresholds{
		Job: DefaultJobThreshold, Eval: DefaultEvalThreshold, BatchEval: DefaultBatchEvalThreshold,
		Deployment: DefaultDeploymentThreshold, Node: DefaultNodeThreshold,
	}
}

// Config is the collector's configuration; zero fields take the defaults.
type Config struct {
	Interval   time.Duration
	Thresholds Thresholds
	BatchSize  int
}

// WithDefaults returns c with every zero field set to its default (a
// zero threshold is taken as unset here: forced collections pass their
// zero Thresholds to Collect directly).
func (c Config) WithDefaults() Config {
	d := DefaultThresholds()
	set := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&c.Interval, DefaultInterval)
	set(&c.Thresholds.Job, d.Job)
	set(&c.Thresholds.Eval, d.Eval)
	set(&c.Thresholds.BatchEval, d.BatchEval)
	set(&c.Thresholds.Deployment, d.Deployment)
	set(&c.Thresholds.Node, d.Node)
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	return c
}
