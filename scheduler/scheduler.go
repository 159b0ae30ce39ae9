package scheduler

import (
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nomadish/nomadish/structs"
)

// State is the read-only view of the cluster a scheduler plans against. The
// server satisfies it with an adapter over a state snapshot; tests use
// schedulertest.Store. Slices returned are owned by the caller's snapshot and
// must not be mutated.
type State interface {
	Nodes() ([]*structs.Node, error)                                    // all nodes, any status
	NodeByID(id string) (*structs.Node, error)                          // nil,nil when absent
	JobByID(namespace, id string) (*structs.Job, error)                 // nil,nil when absent
	AllocsByJob(namespace, jobID string) ([]*structs.Allocation, error) // incl. terminal
	LiveAllocsByNode(nodeID string) ([]*structs.Allocation, error)      // non-terminal only
	LatestIndex() (uint64, error)
	// SchedulerConfig returns the cluster's scheduler configuration
	// (algorithm, preemption per job type); never nil without an error.
	SchedulerConfig() (*structs.SchedulerConfiguration, error)
}

// Planner receives a scheduler's decisions. The server's worker satisfies it
// by forwarding plans to the plan applier and evals to raft.
type Planner interface {
	// SubmitPlan returns what was committed. When result.RefreshIndex != 0 part of the plan
	// was rejected; newState (non-nil then) is a snapshot at >= RefreshIndex to retry against.
	SubmitPlan(plan *structs.Plan) (result *structs.PlanResult, newState State, err error)
	UpdateEval(eval *structs.Evaluation) error  // upsert (status complete/failed, etc.)
	CreateEval(eval *structs.Evaluation) error  // new eval (e.g. blocked follow-up)
	ReblockEval(eval *structs.Evaluation) error // re-block an eval that came from the blocked set
}

// Scheduler processes one evaluation. Process is called from one worker
// goroutine at a time per Scheduler value; a Scheduler is not safe for
// concurrent use.
type Scheduler interface {
	Process(eval *structs.Evaluation) error
}

// Config is what a scheduler needs. Logger nil means no logs; Now nil means
// time.Now (the only clock the package reads, and only through this field).
type Config struct {
	Logger  hclog.Logger
	State   State
	Planner Planner
	Now     func() time.Time
	// PreferenceScoreLimit is how many feasible nodes a placement scores
	// when its group has an affinity or a spread: 0 means
	// DefaultPreferenceScoreLimit, a negative value every node (as Nomad).
	PreferenceScoreLimit int
}

// maxPlanAttempts bounds how many times one eval submits a plan that the
// plan applier partly rejects before the eval is marked failed.
const maxPlanAttempts = 5

// New returns the scheduler for a job type: "service" or "batch" (the
// generic scheduler), "system" or "sysbatch" (the system scheduler). Unknown
// types and a Config without State or Planner return an error.
func New(schedType string, cfg Config) (Scheduler, error) {
	if cfg.State == nil || cfg.Planner == nil {
		return nil, fmt.Errorf("scheduler: config needs State and Planner")
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err := supportedType(schedType); err != nil {
		return nil, err
	}
	if isSystemType(schedType) {
		return newSystemScheduler(schedType, cfg), nil
	}
	return newGenericScheduler(schedType, cfg), nil
}

// isSystemType reports whether schedType is run by the system scheduler.
func isSystemType(schedType string) bool {
	return schedType == structs.JobTypeSystem || schedType == structs.JobTypeSysBatch
}

// supportedType returns nil for the types New and DryRun can schedule.
func supportedType(schedType string) error {
	switch schedType {
	case structs.JobTypeService, structs.JobTypeBatch, structs.JobTypeSystem, structs.JobTypeSysBatch:
		return nil
	}
	return fmt.Errorf("unknown scheduler type %q", schedType)
}

// NodeUsageState is an optional State that keeps each node's live usage
// (the server's state store: its node_usage table, in the same transaction
// as the allocations): the ranker then starts a node's usage from its sum
// instead of listing and adding its allocations, and reads allocations by
// ID to take an in-place update's old version out.
type NodeUsageState interface {
	// NodeLiveUsage is the sum of the node's live allocations' comparable
	// resources and their number.
	NodeLiveUsage(nodeID string) (structs.ComparableResources, int, error)
	AllocByID(id string) (*structs.Allocation, error) // nil, nil when absent
}
