package worker_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/server/broker"
	"github.com/nomadish/nomadish/server/worker"
	"github.com/nomadish/nomadish/structs"
)

// fakeState is a scheduler.State with only an index.
type fakeState struct {
	scheduler.State // other methods unused: calling one panics
	index           uint64
}

func (s fakeState) LatestIndex() (uint64, error) { return s.index, nil }

// waiter is a StateWaiter whose index the test raises.
type waiter struct {
	mu      sync.Mutex // guards index and changed
	index   uint64
	changed chan struct{}
}

func newWaiter(index uint64) *waiter { return &waiter{index: index, changed: make(chan struct{})} }

func (w *waiter) set(index uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.index = index
	close(w.changed)
	w.changed = make(chan struct{})
}

func (w *waiter) SnapshotMinIndex(ctx context.Context, index uint64) (scheduler.State, error) {
	for {
		w.mu.Lock()
		cur, ch := w.index, w.changed
		w.mu.Unlock()
		if cur >= index {
			return fakeState{index: cur}, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

type evalWriter struct {
	mu    sync.Mutex // guards evals
	evals []*structs.Evaluation
}

func (e *evalWriter) UpsertEvals(evals []*structs.Evaluation) (uint64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range evals {
		e.evals = append(e.evals, ev.Copy())
	}
	return 100, nil
}

func (e *evalWriter) all() []*structs.Evaluation {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*structs.Evaluation(nil), e.evals...)
}

type planSubmitter struct {
	mu     sync.Mutex // guards plans
	plans  []*structs.Plan
	result func(*structs.Plan) *structs.PlanResult
}

func (p *planSubmitter) Submit(_ context.Context, plan *structs.Plan) (*structs.PlanResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.plans = append(p.plans, plan)
	return p.result(plan), nil
}

// schedFunc is a scheduler made of a function.
type schedFunc func(eval *structs.Evaluation) error

func (f schedFunc) Process(eval *structs.Evaluation) error { return f(eval) }

type harness struct {
	broker *broker.EvalBroker
	state  *waiter
	evals  *evalWriter
	plans  *planSubmitter
	calls  int // scheduler runs; read after synctest.Wait
}

// startWorker runs a worker whose scheduler calls process with the planner
// and state it was built with. The broker has NackTimeout 10s.
func startWorker(t *testing.T, stateIndex uint64, process func(cfg scheduler.Config, eval *structs.Evaluation) error, tweak ...func(*worker.Config)) *harness {
	t.Helper()
	h := &harness{
		broker: broker.NewEvalBroker(broker.BrokerConfig{NackTimeout: 10 * time.Second, InitialNackDelay: time.Hour}),
		state:  newWaiter(stateIndex),
		evals:  &evalWriter{},
		plans:  &planSubmitter{result: func(*structs.Plan) *structs.PlanResult { return &structs.PlanResult{AllocIndex: 50} }},
	}
	h.broker.SetEnabled(true)
	cfg := worker.Config{
		Broker: h.broker, Plans: h.plans, State: h.state, Evals: h.evals,
		Schedulers: []string{"service"}, StateWaitTimeout: 3 * time.Second, ResetInterval: 4 * time.Second,
		NewScheduler: func(typ string, cfg scheduler.Config) (scheduler.Scheduler, error) {
			if typ != "service" {
				return nil, errors.New("unknown type")
			}
			return schedFunc(func(e *structs.Evaluation) error { h.calls++; return process(cfg, e) }), nil
		},
	}
	for _, f := range tweak {
		f(&cfg)
	}
	w := worker.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; h.broker.SetEnabled(false) })
	return h
}

func testEval(modifyIndex uint64) *structs.Evaluation {
	return &structs.Evaluation{
		ID: "e1", Namespace: "default", JobID: "j1", Type: "service", Priority: 50,
		Status: structs.EvalStatusPending, CreateIndex: modifyIndex, ModifyIndex: modifyIndex,
	}
}

func complete(cfg scheduler.Config, e *structs.Evaluation) error {
	out := e.Copy()
	out.Status = structs.EvalStatusComplete
	return cfg.Planner.UpdateEval(out)
}

func TestAckedAfterSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startWorker(t, 10, complete)
		h.broker.Enqueue(testEval(10))
		synctest.Wait()
		if s := h.broker.Stats(); s.TotalReady+s.TotalUnacked+s.TotalWaiting != 0 || h.calls != 1 {
			t.Fatalf("not acked: %+v, calls %d", s, h.calls)
		}
		ev := h.evals.all()
		if len(ev) != 1 || ev[0].Status != structs.EvalStatusComplete || ev[0].SnapshotIndex != 10 {
			t.Fatalf("evals written %+v", ev)
		}
	})
}

func TestNackedOnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startWorker(t, 10, func(scheduler.Config, *structs.Evaluation) error { return errors.New("boom") })
		h.broker.Enqueue(testEval(10))
		synctest.Wait()
		if s := h.broker.Stats(); s.TotalWaiting != 1 || s.TotalUnacked != 0 {
			t.Fatalf("not nacked: %+v", s)
		}
	})
}

func TestNackedOnPanicAndWorkerSurvives(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startWorker(t, 10, func(_ scheduler.Config, e *structs.Evaluation) error {
			if e.ID == "e1" {
				panic("scheduler bug")
			}
			return nil
		})
		h.broker.Enqueue(testEval(10))
		synctest.Wait()
		if s := h.broker.Stats(); s.TotalWaiting != 1 {
			t.Fatalf("not nacked: %+v", s)
		}
		e2 := testEval(10)
		e2.ID, e2.JobID = "e2", "j2"
		h.broker.Enqueue(e2)
		synctest.Wait()
		if s := h.broker.Stats(); s.TotalWaiting != 1 || s.TotalReady+s.TotalUnacked != 0 || h.calls != 2 {
			t.Fatalf("worker did not go on: %+v calls %d", s, h.calls)
		}
	})
}

func TestOnlyGivenSchedulersAndBuildErrorNacks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startWorker(t, 10, complete, func(c *worker.Config) { c.Schedulers = []string{"service", "system"} })
		sys := testEval(10)
		sys.Type = "system"
		h.broker.Enqueue(sys)
		batch := testEval(10)
		batch.ID, batch.JobID, batch.Type = "e2", "j2", "batch"
		h.broker.Enqueue(batch)
		synctest.Wait()
		s := h.broker.Stats()
		if s.TotalWaiting != 1 || s.ByScheduler["batch"].Ready != 1 || h.calls != 0 {
			t.Fatalf("stats %+v calls %d", s, h.calls)
		}
	})
}

func TestWaitsForStateIndex(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startWorker(t, 5, complete)
		h.broker.Enqueue(testEval(10))
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if h.calls != 0 {
			t.Fatal("scheduler ran before the state reached the eval's index")
		}
		h.state.set(12)
		synctest.Wait()
		if h.calls != 1 || h.evals.all()[0].SnapshotIndex != 12 {
			t.Fatalf("calls %d evals %+v", h.calls, h.evals.all())
		}
		if s := h.broker.Stats(); s.TotalUnacked+s.TotalWaiting != 0 {
			t.Fatalf("not acked: %+v", s)
		}
	})
}

func TestStateWaitTimeoutNacks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startWorker(t, 5, complete)
		h.broker.Enqueue(testEval(10))
		time.Sleep(3*time.Second + time.Millisecond)
		synctest.Wait()
		if s := h.broker.Stats(); s.TotalWaiting != 1 || h.calls != 0 {
			t.Fatalf("not nacked after the state wait timeout: %+v calls %d", s, h.calls)
		}
	})
}

func TestOutstandingResetDuringLongEval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startWorker(t, 10, func(cfg scheduler.Config, e *structs.Evaluation) error {
			time.Sleep(35 * time.Second) // > 3x the broker's 10s nack timeout
			return complete(cfg, e)
		})
		h.broker.Enqueue(testEval(10))
		time.Sleep(36 * time.Second)
		synctest.Wait()
		if s := h.broker.Stats(); s.TotalReady+s.TotalUnacked+s.TotalWaiting != 0 || h.calls != 1 {
			t.Fatalf("long eval was not kept outstanding: %+v calls %d", s, h.calls)
		}
	})
}

func TestSubmitPlanRefreshesState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []uint64
		h := startWorker(t, 10, func(cfg scheduler.Config, e *structs.Evaluation) error {
			for range 2 {
				res, st, err := cfg.Planner.SubmitPlan(structs.NewPlan(e, nil))
				if err != nil {
					return err
				}
				if res.RefreshIndex != 0 {
					idx, _ := st.LatestIndex()
					got = append(got, idx)
				}
			}
			return complete(cfg, e)
		})
		h.plans.result = func(p *structs.Plan) *structs.PlanResult {
			if p.SnapshotIndex == 10 {
				h.state.set(20)
				return &structs.PlanResult{RefreshIndex: 15, RejectedNodes: []string{"n1"}}
			}
			return &structs.PlanResult{AllocIndex: 21}
		}
		h.broker.Enqueue(testEval(10))
		synctest.Wait()
		if len(got) != 1 || got[0] != 20 {
			t.Fatalf("refreshed states %v", got)
		}
		if len(h.plans.plans) != 2 || h.plans.plans[1].SnapshotIndex != 20 {
			t.Fatalf("second plan snapshot index %d", h.plans.plans[1].SnapshotIndex)
		}
		if ev := h.evals.all(); len(ev) != 1 || ev[0].SnapshotIndex != 20 {
			t.Fatalf("evals %+v", ev)
		}
	})
}

type reblocker struct{ evals []*structs.Evaluation }

func (r *reblocker) Block(e *structs.Evaluation) { r.evals = append(r.evals, e) }

func TestCreateAndReblockEval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rb := &reblocker{}
		h := startWorker(t, 10, func(cfg scheduler.Config, e *structs.Evaluation) error {
			if err := cfg.Planner.CreateEval(e.CreateBlockedEval(time.Now())); err != nil {
				return err
			}
			return cfg.Planner.ReblockEval(e.Copy())
		}, func(c *worker.Config) { c.Blocked = rb })
		h.broker.Enqueue(testEval(10))
		synctest.Wait()
		ev := h.evals.all()
		if len(ev) != 2 || ev[0].Status != structs.EvalStatusBlocked || ev[1].ID != "e1" ||
			ev[1].Status != structs.EvalStatusBlocked || ev[1].SnapshotIndex != 10 {
			t.Fatalf("evals %+v", ev)
		}
		if len(rb.evals) != 1 || rb.evals[0].ID != "e1" {
			t.Fatalf("reblocked %+v", rb.evals)
		}
	})
}

func TestTimedOutDeliveryDoesNotSubmitPlan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var submitErr error
		h := startWorker(t, 10, func(cfg scheduler.Config, e *structs.Evaluation) error {
			time.Sleep(11 * time.Second) // past the broker's 10s nack timeout, no reset
			_, _, submitErr = cfg.Planner.SubmitPlan(structs.NewPlan(e, nil))
			return submitErr
		}, func(c *worker.Config) { c.ResetInterval = time.Hour })
		h.broker.Enqueue(testEval(10))
		time.Sleep(12 * time.Second)
		synctest.Wait()
		if !errors.Is(submitErr, broker.ErrNotOutstanding) || len(h.plans.plans) != 0 {
			t.Fatalf("stale plan submitted: err %v, plans %d", submitErr, len(h.plans.plans))
		}
	})
}
