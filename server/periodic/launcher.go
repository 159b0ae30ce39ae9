package periodic

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/internal/clock"
	"github.com/nomadish/nomadish/structs"
)

// ErrConfig is returned by New when a required part is missing.
var ErrConfig = errors.New("periodic: missing State, Apply or Clock")

// State is what the launcher reads (the server's state store satisfies it).
type State interface {
	// PeriodicJobs lists the active periodic parents of every namespace,
	// adding to ws a watch that fires when one of them changes (a write to
	// another job must not wake the launcher: a round per job write was
	// quadratic in the number of jobs).
	PeriodicJobs(ws memdb.WatchSet) ([]*structs.Job, error)
	// PeriodicLaunchByID returns a parent's last launch or nil.
	PeriodicLaunchByID(ws memdb.WatchSet, namespace, id string) (*structs.PeriodicLaunch, error)
	// JobChildren lists a parent's children.
	JobChildren(ws memdb.WatchSet, namespace, parent string) ([]*structs.Job, error)
	// AbandonCh is closed when the store is replaced (a snapshot restore):
	// the launcher then reads the new one.
	AbandonCh() <-chan struct{}
}

// Config builds a Launcher.
type Config struct {
	// State returns the current state store (it changes on a snapshot
	// restore); called once per round.
	State func() State
	// Apply commits one launch through raft (PeriodicLaunchRequestType).
	Apply  func(*structs.PeriodicLaunchRequest) error
	Clock  clock.Clock
	Logger hclog.Logger
	// Retry is how long to wait after a failed round (default 1s).
	Retry time.Duration
}

// Launcher launches periodic jobs' children while the server leads. It
// owns no shared state: Run's goroutine does everything.
type Launcher struct {
	cfg Config
}

// New checks cfg and returns a launcher.
func New(cfg Config) (*Launcher, error) {
	if cfg.State == nil || cfg.Apply == nil || cfg.Clock == nil {
		return nil, ErrConfig
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.Retry == 0 {
		cfg.Retry = time.Second
	}
	cfg.Logger = cfg.Logger.Named("periodic")
	return &Launcher{cfg: cfg}, nil
}

// Run launches until ctx ends: a round, then wait for the earliest next
// launch (on the clock) or a change of the jobs it read.
func (l *Launcher) Run(ctx context.Context) {
	for {
		ws := memdb.NewWatchSet()
		next, err := l.Round(ws)
		wait := time.Duration(0)
		switch {
		case err != nil:
			l.cfg.Logger.Error("periodic round failed", "error", err)
			wait = l.cfg.Retry
		case !next.IsZero():
			wait = max(next.Sub(l.cfg.Clock.Now()), 0)
		}
		wctx, cancel := context.WithCancel(ctx)
		changed := ws.WatchCh(wctx)
		tick := make(chan struct{}, 1)
		var timer clock.Timer
		if err != nil || !next.IsZero() { // no next launch: wait for a change only
			timer = l.cfg.Clock.AfterFunc(wait, func() { tick <- struct{}{} })
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-tick:
		}
		if timer != nil {
			timer.Stop()
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
	}
}

// Round launches what is due for every active periodic job and returns the
// earliest next launch (zero: none). Called from Run's goroutine (or a
// test's).
func (l *Launcher) Round(ws memdb.WatchSet) (time.Time, error) {
	st := l.cfg.State()
	ws.Add(st.AbandonCh())
	jobs, err := st.PeriodicJobs(ws)
	if err != nil {
		return time.Time{}, err
	}
	var earliest time.Time
	for _, j := range jobs {
		if !j.IsPeriodicActive() {
			continue
		}
		next, err := l.launchJob(st, j)
		if err != nil {
			return time.Time{}, err
		}
		if !next.IsZero() && (earliest.IsZero() || next.Before(earliest)) {
			earliest = next
		}
	}
	return earliest, nil
}

// launchJob decides and commits one job's due launch; it returns the next.
func (l *Launcher) launchJob(st State, j *structs.Job) (time.Time, error) {
	in := Input{Config: j.Periodic, Since: time.Unix(0, j.SubmitTime), Now: l.cfg.Clock.Now()}
	last, err := st.PeriodicLaunchByID(nil, j.Namespace, j.ID)
	if err != nil {
		return time.Time{}, err
	}
	if last != nil {
		in.Last = last.Launch
	}
	if j.Periodic.ProhibitOverlap {
		children, err := st.JobChildren(nil, j.Namespace, j.ID)
		if err != nil {
			return time.Time{}, err
		}
		for _, c := range children {
			if c.Status != structs.JobStatusDead {
				in.ChildRunning = true
			}
		}
	}
	d := Decide(in)
	if d.Launch.IsZero() {
		return d.Next, nil
	}
	req := structs.NewPeriodicLaunch(j, d.Launch, in.Now)
	if d.Skip {
		req.Child, req.Eval = nil, nil
		l.cfg.Logger.Info("skipping launch: a child is still running (prohibit_overlap)", "job", j.ID, "launch", d.Launch)
	} else {
		l.cfg.Logger.Debug("launching periodic job", "job", j.ID, "child", req.Child.ID, "launch", d.Launch)
	}
	if err := l.cfg.Apply(req); err != nil {
		return time.Time{}, err
	}
	return d.Next, nil
}
