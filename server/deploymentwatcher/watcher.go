package deploymentwatcher

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/internal/clock"
	"github.com/nomadish/nomadish/structs"
)

// retryDelay is the wait after a failed raft write before looking again.
const retryDelay = time.Second

// State is the store the watcher reads (*state.StateStore satisfies it).
type State interface {
	Deployments(ws memdb.WatchSet, namespace string) ([]*structs.Deployment, error)
	AllocsByDeployment(ws memdb.WatchSet, id string) ([]*structs.Allocation, error)
	JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error)
	JobVersionsByID(ws memdb.WatchSet, namespace, id string) ([]*structs.Job, error)
	AbandonCh() <-chan struct{}
}

// Writer commits the watcher's decisions (through raft on the server).
type Writer interface {
	UpdateDeploymentStatus(req *structs.DeploymentStatusUpdateRequest) error
	PromoteDeployment(req *structs.DeploymentPromoteRequest) error
	CreateEvals(evals []*structs.Evaluation) error
}

// Config is what a Watcher needs; State and Writer are required.
type Config struct {
	// State returns the current store (it changes on a snapshot restore).
	State  func() State
	Writer Writer
	Clock  clock.Clock // nil: the wall clock
	Logger hclog.Logger
}

// Watcher runs on the leader: Run until leadership ends.
type Watcher struct {
	cfg    Config
	logger hclog.Logger
	// seen is the healthy count of each running deployment at its last
	// look; owned by Run's goroutine.
	seen map[string]int
}

// New returns a watcher; call Run.
func New(cfg Config) *Watcher {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	return &Watcher{cfg: cfg, logger: cfg.Logger.Named("deployment_watcher"), seen: map[string]int{}}
}

// Run looks at every running deployment each time the deployments table
// changes or a progress deadline passes, until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	for ctx.Err() == nil {
		st := w.cfg.State()
		ws := memdb.NewWatchSet()
		ws.Add(st.AbandonCh())
		next, err := w.pass(st, ws)
		wait := time.Duration(0)
		if err != nil {
			w.logger.Warn("watching deployments", "error", err)
			wait = retryDelay
		} else if !next.IsZero() {
			wait = max(next.Sub(w.cfg.Clock.Now()), time.Millisecond)
		}
		w.wait(ctx, ws, wait, err != nil)
	}
}

// wait blocks until the watch set fires (unless onlyTimer), the timer
// (when d > 0) or ctx ends.
func (w *Watcher) wait(ctx context.Context, ws memdb.WatchSet, d time.Duration, onlyTimer bool) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if d > 0 {
		t := w.cfg.Clock.AfterFunc(d, cancel)
		defer t.Stop()
	}
	if onlyTimer {
		<-wctx.Done()
		return
	}
	_ = ws.WatchCtx(wctx) // an error only says ctx ended
}

// pass acts on every running deployment once; it returns the earliest
// progress deadline ahead.
func (w *Watcher) pass(st State, ws memdb.WatchSet) (time.Time, error) {
	ds, err := st.Deployments(ws, "*")
	if err != nil {
		return time.Time{}, err
	}
	now := w.cfg.Clock.Now()
	var next time.Time
	live := map[string]bool{}
	for _, d := range ds {
		if d.Status != structs.DeploymentStatusRunning {
			continue
		}
		live[d.ID] = true
		if err := w.step(st, d, now); err != nil {
			return time.Time{}, err
		}
		if n := NextDeadline(d, now); !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	}
	for id := range w.seen {
		if !live[id] {
			delete(w.seen, id)
		}
	}
	return next, nil
}

// step decides and commits the actions for one deployment.
func (w *Watcher) step(st State, d *structs.Deployment, now time.Time) error {
	allocs, err := st.AllocsByDeployment(nil, d.ID)
	if err != nil {
		return err
	}
	job, err := st.JobByID(nil, d.Namespace, d.JobID)
	if err != nil {
		return err
	}
	for _, a := range Decide(d, allocs, now, w.seen[d.ID]) {
		log := w.logger.With("deployment_id", d.ID, "job_id", d.JobID)
		switch a.Kind {
		case Succeed:
			log.Info("deployment successful")
			err = w.cfg.Writer.UpdateDeploymentStatus(&structs.DeploymentStatusUpdateRequest{
				DeploymentUpdate: &structs.DeploymentStatusUpdate{DeploymentID: d.ID,
					Status: structs.DeploymentStatusSuccessful, StatusDescription: a.Description},
				MarkStable: true,
			})
		case Fail:
			log.Info("deployment failed", "reason", a.Description)
			var versions []*structs.Job
			if versions, err = st.JobVersionsByID(nil, d.Namespace, d.JobID); err == nil {
				err = w.cfg.Writer.UpdateDeploymentStatus(FailRequest(d, a.Description, job, versions, now))
			}
		case Promote:
			log.Info("auto-promoting canaries")
			req := &structs.DeploymentPromoteRequest{DeploymentID: d.ID, All: true}
			if job != nil {
				req.Eval = NewEval(job, now)
			}
			err = w.cfg.Writer.PromoteDeployment(req)
		case Eval:
			if job != nil {
				err = w.cfg.Writer.CreateEvals([]*structs.Evaluation{NewEval(job, now)})
			}
		}
		if err != nil {
			return err
		}
	}
	w.seen[d.ID] = Healthy(d)
	return nil
}
