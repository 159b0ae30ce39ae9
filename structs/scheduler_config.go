package structs

import "fmt"

// Scheduler algorithms (SchedulerConfiguration.SchedulerAlgorithm).
const (
	SchedulerAlgorithmBinpack = "binpack"
	SchedulerAlgorithmSpread  = "spread"
)

// PreemptionMinPriorityDelta is how much lower than the placing job's
// priority a job must be for its allocations to be preempted.
const PreemptionMinPriorityDelta = 10

// EvalTriggerPreemption is the trigger of the evals created for jobs that
// lost allocations to preemption.
const EvalTriggerPreemption = "preemption"

// SchedulerConfiguration is the cluster-wide scheduler configuration, with
// the JSON shape of Nomad's (GET/PUT /v1/operator/scheduler/configuration).
// It is a singleton in the state store, written through raft.
type SchedulerConfiguration struct {
	// SchedulerAlgorithm is "binpack" (fill nodes) or "spread" (empty
	// nodes first).
	SchedulerAlgorithm string
	// MemoryOversubscriptionEnabled is accepted and stored for
	// compatibility; memory_max is not enforced by placement yet.
	MemoryOversubscriptionEnabled bool
	PreemptionConfig              PreemptionConfig
	// PauseEvalBroker disables the leader's eval broker and blocked evals
	// (no evaluation is scheduled) until it is set back to false; evals
	// may be deleted only while it is set (Eval.Delete).
	PauseEvalBroker bool

	CreateIndex uint64
	ModifyIndex uint64
}

// PreemptionConfig turns preemption on or off per scheduler type.
type PreemptionConfig struct {
	SystemSchedulerEnabled   bool
	SysBatchSchedulerEnabled bool
	BatchSchedulerEnabled    bool
	ServiceSchedulerEnabled  bool
}

// DefaultSchedulerConfiguration is the configuration of a cluster nobody
// configured: bin-packing, and preemption on for every job type (Nomad has it
// on for system jobs only).
func DefaultSchedulerConfiguration() *SchedulerConfiguration {
	return &SchedulerConfiguration{
		SchedulerAlgorithm: SchedulerAlgorithmBinpack,
		PreemptionConfig: PreemptionConfig{
			SystemSchedulerEnabled: true, SysBatchSchedulerEnabled: true,
			BatchSchedulerEnabled: true, ServiceSchedulerEnabled: true,
		},
	}
}

// EffectiveSchedulerAlgorithm returns the algorithm, "binpack" when unset.
// A nil configuration is the default one.
func (c *SchedulerConfiguration) EffectiveSchedulerAlgorithm() string {
	if c == nil || c.SchedulerAlgorithm == "" {
		return SchedulerAlgorithmBinpack
	}
	return c.SchedulerAlgorithm
}

// PreemptionEnabled reports whether the scheduler of jobType may preempt. A
// nil configuration is the default one (enabled for every type).
func (c *SchedulerConfiguration) PreemptionEnabled(jobType string) bool {
	if c == nil {
		return true
	}
	p := c.PreemptionConfig
	switch jobType {
	case JobTypeService:
		return p.ServiceSchedulerEnabled
	case JobTypeBatch:
		return p.BatchSchedulerEnabled
	case JobTypeSystem:
		return p.SystemSchedulerEnabled
	case JobTypeSysBatch:
		return p.SysBatchSchedulerEnabled
	}
	return false
}

// Validate checks the algorithm name.
func (c *SchedulerConfiguration) Validate() error {
	switch c.SchedulerAlgorithm {
	case "", SchedulerAlgorithmBinpack, SchedulerAlgorithmSpread:
		return nil
	}
	return fmt.Errorf("invalid scheduler algorithm %q: want %q or %q", c.SchedulerAlgorithm, SchedulerAlgorithmBinpack, SchedulerAlgorithmSpread)
}

// Copy returns a copy (the struct holds no references).
func (c *SchedulerConfiguration) Copy() *SchedulerConfiguration {
	if c == nil {
		return nil
	}
	out := *c
	return &out
}

// SchedulerSetConfigRequest writes the scheduler configuration
// (Operator.SchedulerSetConfiguration). With CAS, the write happens only if
// the stored configuration's ModifyIndex is Config.ModifyIndex.
type SchedulerSetConfigRequest struct {
	Config SchedulerConfiguration
	CAS    bool
	WriteRequest
}

// SchedulerSetConfigurationResponse answers a write (Nomad's shape): Updated
// is false when a CAS write lost.
type SchedulerSetConfigurationResponse struct {
	Updated bool
	WriteMeta
}

// SchedulerConfigurationResponse answers a read (Nomad's shape).
type SchedulerConfigurationResponse struct {
	SchedulerConfig *SchedulerConfiguration
	QueryMeta
}

// RPC method names of the scheduler configuration.
const (
	OperatorSchedulerGetConfigurationRPC = "Operator.SchedulerGetConfiguration"
	OperatorSchedulerSetConfigurationRPC = "Operator.SchedulerSetConfiguration"
)
