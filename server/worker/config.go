package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/structs"
)

// ErrNoConfig is returned by Config.Validate (and logged by Run) for a
// config missing a dependency.
var ErrNoConfig = errors.New("worker: incomplete config")

// EvalSource hands out evals; *broker.EvalBroker satisfies it.
type EvalSource interface {
	Dequeue(ctx context.Context, schedulers []string) (*structs.Evaluation, string, error)
	Ack(evalID, token string) error
	Nack(evalID, token string) error
	OutstandingReset(evalID, token string) error
}

// PlanSubmitter applies plans; *planapply.Applier satisfies it.
type PlanSubmitter interface {
	Submit(ctx context.Context, plan *structs.Plan) (*structs.PlanResult, error)
}

// StateWaiter gives a snapshot once the state store reached index.
type StateWaiter interface {
	SnapshotMinIndex(ctx context.Context, index uint64) (scheduler.State, error)
}

// EvalWriter upserts evals through raft.
type EvalWriter interface {
	UpsertEvals(evals []*structs.Evaluation) (index uint64, err error)
}

// Reblocker puts an eval back in the blocked set; *broker.BlockedEvals
// satisfies it. Optional: leave it nil when the leader's state-change
// subscriber already blocks evals upserted with status blocked.
type Reblocker interface {
	Block(eval *structs.Evaluation)
}

// Defaults for Config.
const (
	DefaultStateWaitTimeout = 5 * time.Second
	DefaultResetInterval    = 15 * time.Second
	DefaultDequeueBackoff   = 500 * time.Millisecond
)

// Config configures a Worker. Broker, Plans, State, Evals and Schedulers
// are required.
type Config struct {
	Broker     EvalSource
	Plans      PlanSubmitter
	State      StateWaiter
	Evals      EvalWriter
	Blocked    Reblocker // optional
	Schedulers []string  // scheduler types to dequeue, e.g. {"service", "batch"}
	Logger     hclog.Logger
	Now        func() time.Time // given to schedulers; nil means time.Now

	// NewScheduler builds the scheduler for an eval; nil means scheduler.New.
	NewScheduler func(schedType string, cfg scheduler.Config) (scheduler.Scheduler, error)
	// StateWaitTimeout bounds the wait for the state store to reach an
	// eval's ModifyIndex (or a plan's RefreshIndex); then the eval is nacked.
	StateWaitTimeout time.Duration
	// ResetInterval is how often OutstandingReset is called while an eval
	// is processed; keep it well under the broker's NackTimeout.
	ResetInterval time.Duration
	// DequeueBackoff is the wait after a Dequeue error (broker disabled).
	DequeueBackoff time.Duration
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.NewScheduler == nil {
		c.NewScheduler = scheduler.New
	}
	if c.StateWaitTimeout <= 0 {
		c.StateWaitTimeout = DefaultStateWaitTimeout
	}
	if c.ResetInterval <= 0 {
		c.ResetInterval = DefaultResetInterval
	}
	if c.DequeueBackoff <= 0 {
		c.DequeueBackoff = DefaultDequeueBackoff
	}
	return c
}

// Validate reports a missing required field.
func (c Config) Validate() error {
	switch {
	case c.Broker == nil:
		return fmt.Errorf("%w: Broker is nil", ErrNoConfig)
	case c.Plans == nil:
		return fmt.Errorf("%w: Plans is nil", ErrNoConfig)
	case c.State == nil:
		return fmt.Errorf("%w: State is nil", ErrNoConfig)
	case c.Evals == nil:
		return fmt.Errorf("%w: Evals is nil", ErrNoConfig)
	case len(c.Schedulers) == 0:
		return fmt.Errorf("%w: Schedulers is empty", ErrNoConfig)
	}
	return nil
}
