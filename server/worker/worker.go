package worker

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/hashicorp/go-hclog"
	metrics "github.com/hashicorp/go-metrics"
	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/structs"
)

// Worker processes evals one at a time. Run several Workers for parallelism.
type Worker struct {
	cfg    Config
	logger hclog.Logger
}

// New returns a worker; call Run to start it.
func New(cfg Config) *Worker {
	cfg = cfg.withDefaults()
	return &Worker{cfg: cfg, logger: cfg.Logger.Named("worker")}
}

// Run dequeues and processes evals until ctx ends (leadership loss or
// shutdown). It returns at once when the config is incomplete. Call it from
// one goroutine per Worker.
func (w *Worker) Run(ctx context.Context) {
	if err := w.cfg.Validate(); err != nil {
		w.logger.Error("not starting", "error", err)
		return
	}
	for ctx.Err() == nil {
		start := time.Now()
		eval, token, err := w.cfg.Broker.Dequeue(ctx, w.cfg.Schedulers)
		metrics.MeasureSince(metricDequeue, start)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.logger.Debug("dequeue failed; backing off", "error", err, "backoff", w.cfg.DequeueBackoff)
			sleep(ctx, w.cfg.DequeueBackoff)
			continue
		}
		w.process(ctx, eval, token)
	}
}

// sleep waits for d or ctx.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// process runs one delivery to its ack or nack.
func (w *Worker) process(ctx context.Context, eval *structs.Evaluation, token string) {
	log := w.logger.With("eval_id", eval.ID, "job_id", eval.JobID, "type", eval.Type, "triggered_by", eval.TriggeredBy)
	stopReset := w.keepOutstanding(ctx, log, eval.ID, token)
	err := w.run(ctx, log, eval, token)
	stopReset()
	if err != nil && ctx.Err() != nil {
		// Leadership lost or shutting down: the broker is flushed (or the
		// nack timer redelivers it), and a new leader re-enqueues the eval
		// from the state store.
		log.Debug("stopped while processing evaluation", "error", err)
		return
	}
	if err != nil {
		log.Warn("evaluation failed; nacking", "error", err)
		if nerr := w.cfg.Broker.Nack(eval.ID, token); nerr != nil {
			log.Error("nack failed", "error", nerr)
		}
		return
	}
	if aerr := w.cfg.Broker.Ack(eval.ID, token); aerr != nil {
		log.Error("ack failed", "error", aerr)
		return
	}
	log.Debug("evaluation processed")
}

// keepOutstanding calls OutstandingReset every ResetInterval until the
// returned stop function is called (which waits for the goroutine to end).
func (w *Worker) keepOutstanding(ctx context.Context, log hclog.Logger, id, token string) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(w.cfg.ResetInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if err := w.cfg.Broker.OutstandingReset(id, token); err != nil {
					log.Warn("extending the nack timer failed", "error", err)
				}
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { close(done); <-exited }
}

// run waits for the state to reach the eval and runs its scheduler.
func (w *Worker) run(ctx context.Context, log hclog.Logger, eval *structs.Evaluation, token string) error {
	state, index, err := w.snapshotMinIndex(ctx, eval.ModifyIndex)
	if err != nil {
		return fmt.Errorf("waiting for state index %d: %w", eval.ModifyIndex, err)
	}
	p := &planner{w: w, ctx: ctx, evalID: eval.ID, token: token, snapshotIndex: index}
	sched, err := w.cfg.NewScheduler(eval.Type, scheduler.Config{
		Logger: log, State: state, Planner: p, Now: w.cfg.Now,
	})
	if err != nil {
		return fmt.Errorf("building %q scheduler: %w", eval.Type, err)
	}
	defer metrics.MeasureSince([]string{"nomad", "worker", "invoke_scheduler", eval.Type}, time.Now())
	return safeProcess(log, sched, eval)
}

// metricDequeue is how long a worker waited for an eval (Nomad's
// nomad.nomad.worker.dequeue_eval, milliseconds); invoke_scheduler.<type>
// is how long its scheduler ran.
var metricDequeue = []string{"nomad", "worker", "dequeue_eval"}

// safeProcess runs the scheduler, turning a panic into an error so the
// eval is nacked (and, past the delivery limit, failed) rather than the
// leader crashing.
func safeProcess(log hclog.Logger, sched scheduler.Scheduler, eval *structs.Evaluation) (err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("scheduler panicked", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("scheduler panicked: %v", r)
		}
	}()
	return sched.Process(eval)
}

// snapshotMinIndex waits, at most StateWaitTimeout, for a snapshot at or
// after index and returns it with its index.
func (w *Worker) snapshotMinIndex(ctx context.Context, index uint64) (scheduler.State, uint64, error) {
	wctx, cancel := context.WithTimeout(ctx, w.cfg.StateWaitTimeout)
	defer cancel()
	state, err := w.cfg.State.SnapshotMinIndex(wctx, index)
	if err != nil {
		return nil, 0, err
	}
	got, err := state.LatestIndex()
	if err != nil {
		return nil, 0, fmt.Errorf("reading the snapshot index: %w", err)
	}
	return state, got, nil
}
