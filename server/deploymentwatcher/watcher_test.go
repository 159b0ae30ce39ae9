package deploymentwatcher

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// storeWriter applies the watcher's writes to a real store, like raft.
type storeWriter struct {
	mu    sync.Mutex
	st    *state.StateStore
	index uint64
	evals int
	fails []string
}

func (w *storeWriter) next() uint64 { w.mu.Lock(); defer w.mu.Unlock(); w.index++; return w.index }

func (w *storeWriter) UpdateDeploymentStatus(req *structs.DeploymentStatusUpdateRequest) error {
	if req.DeploymentUpdate.Status == structs.DeploymentStatusFailed {
		w.mu.Lock()
		w.fails = append(w.fails, req.DeploymentUpdate.StatusDescription)
		w.mu.Unlock()
	}
	return w.st.UpdateDeploymentStatus(w.next(), req)
}

func (w *storeWriter) PromoteDeployment(req *structs.DeploymentPromoteRequest) error {
	return w.st.UpdateDeploymentPromotion(w.next(), req)
}

func (w *storeWriter) CreateEvals(evals []*structs.Evaluation) error {
	w.mu.Lock()
	w.evals += len(evals)
	w.mu.Unlock()
	return w.st.UpsertEvals(w.next(), evals)
}

func TestWatcherProgressDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, err := state.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		clock := clocktest.NewFakeClock()
		w := &storeWriter{st: st, index: 100}
		job := &structs.Job{ID: "j", Namespace: "default", Type: structs.JobTypeService, Priority: 50}
		if err := st.UpsertJob(w.next(), job, nil); err != nil {
			t.Fatal(err)
		}
		d := structs.NewDeployment(job)
		d.TaskGroups["g"] = &structs.DeploymentState{DesiredTotal: 2, ProgressDeadline: time.Minute,
			RequireProgressBy: clock.Now().Add(time.Minute)}
		if err := st.UpsertDeployment(w.next(), d); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go New(Config{State: func() State { return st }, Writer: w, Clock: clock}).Run(ctx)
		synctest.Wait()

		// One alloc becomes healthy: an eval continues the rollout.
		cp := d.Copy()
		cp.TaskGroups["g"].HealthyAllocs = 1
		if err := st.UpsertDeployment(w.next(), cp); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if w.evals != 1 || len(w.fails) != 0 {
			t.Fatalf("after a healthy alloc: %d evals, fails %v; want 1 eval", w.evals, w.fails)
		}

		clock.Advance(59 * time.Second)
		synctest.Wait()
		if len(w.fails) != 0 {
			t.Fatalf("failed before the deadline: %v", w.fails)
		}
		clock.Advance(2 * time.Second)
		synctest.Wait()
		got, _ := st.DeploymentByID(nil, d.ID)
		if len(w.fails) != 1 || got.Status != structs.DeploymentStatusFailed ||
			got.StatusDescription != structs.DeploymentStatusDescriptionProgressDeadline {
			t.Fatalf("after the deadline: fails %v, deployment %s %q", w.fails, got.Status, got.StatusDescription)
		}
		cancel()
		synctest.Wait()
	})
}
