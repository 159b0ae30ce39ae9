package drainer

import (
	"context"
	"time"

	"github.com/nomadish/nomadish/internal/clock"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// State is the read side the drainer needs; the server's state store and
// its snapshots satisfy it. Reads add their watch channels to ws (nil ok).
type State interface {
	Nodes(ws memdb.WatchSet) ([]*structs.Node, error)
	AllocsByNode(ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error)
	AllocsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Allocation, error)
	JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error)
}

// Writer commits the drainer's decisions (through raft on the server).
// Both calls return once the write is applied to the state store.
type Writer interface {
	// MarkMigrate sets the transitions and creates the evals in one write.
	MarkMigrate(transitions map[string]*structs.DesiredTransition, evals []*structs.Evaluation) error
	// CompleteDrain clears the node's drain strategy (leaving it
	// ineligible) and records event.
	CompleteDrain(nodeID string, event *structs.NodeEvent) error
}

// DefaultInterval is how often the drainer looks again without a state
// change (health timers and deadlines pass without one).
const DefaultInterval = time.Second

// Config builds a Drainer. State is called each round (the store changes
// after a snapshot restore).
type Config struct {
	State    func() State
	Writer   Writer
	Clock    clock.Clock // the server's one clock (default: the wall clock)
	Interval time.Duration
	Logger   hclog.Logger
}

// Drainer runs drains on the leader: one goroutine (Run) owns it.
type Drainer struct {
	cfg Config
}

// New returns a drainer; nil Clock, Interval and Logger take defaults.
func New(cfg Config) *Drainer {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	cfg.Logger = cfg.Logger.Named("drainer")
	return &Drainer{cfg: cfg}
}

// Run drives drains until ctx ends: a round, then wait for a change of the
// state it read, or the interval.
func (d *Drainer) Run(ctx context.Context) {
	for {
		ws := memdb.NewWatchSet()
		if err := d.Round(ws); err != nil {
			d.cfg.Logger.Error("drain round failed", "error", err)
		}
		wctx, cancel := context.WithCancel(ctx)
		changed := ws.WatchCh(wctx)
		tick := make(chan struct{}, 1)
		timer := d.cfg.Clock.AfterFunc(d.cfg.Interval, func() { tick <- struct{}{} })
		select {
		case <-ctx.Done():
			timer.Stop()
			cancel()
			return
		case <-changed:
		case <-tick:
		}
		timer.Stop()
		cancel()
	}
}

// Round runs Plan for every draining node and writes its decisions. Called
// from Run's goroutine (or a test's).
func (d *Drainer) Round(ws memdb.WatchSet) error {
	st := d.cfg.State()
	nodes, err := st.Nodes(ws)
	if err != nil {
		return err
	}
	now := d.cfg.Clock.Now()
	for _, n := range nodes {
		if n.DrainStrategy == nil {
			continue
		}
		in, err := gather(st, ws, n)
		if err != nil {
			return err
		}
		if err := d.apply(n, Plan(in, now), in.Jobs, now); err != nil {
			return err
		}
	}
	return nil
}

// gather reads one node's Plan input. Reads are fresh for each node: the
// marks written for the nodes before it count.
func gather(st State, ws memdb.WatchSet, n *structs.Node) (NodeInput, error) {
	in := NodeInput{Node: n, Jobs: map[structs.NamespacedID]*structs.Job{},
		JobAllocs: map[structs.NamespacedID][]*structs.Allocation{}}
	allocs, err := st.AllocsByNode(ws, n.ID)
	if err != nil {
		return in, err
	}
	in.Allocs = allocs
	for _, a := range allocs {
		key := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
		if _, ok := in.JobAllocs[key]; ok || a.TerminalStatus() {
			continue
		}
		job, err := st.JobByID(ws, a.Namespace, a.JobID)
		if err != nil {
			return in, err
		}
		if job != nil {
			in.Jobs[key] = job
		}
		if in.JobAllocs[key], err = st.AllocsByJob(ws, a.Namespace, a.JobID); err != nil {
			return in, err
		}
	}
	return in, nil
}

// apply writes one node's decision: marks with one eval per job, or the
// drain's completion.
func (d *Drainer) apply(n *structs.Node, res NodeResult, jobs map[structs.NamespacedID]*structs.Job, now time.Time) error {
	if res.Done {
		d.cfg.Logger.Info("node drain complete", "node", n.ID)
		ev := &structs.NodeEvent{Message: structs.NodeEventDrainComplete, Subsystem: structs.NodeEventSubsystemDrain, Timestamp: now}
		return d.cfg.Writer.CompleteDrain(n.ID, ev)
	}
	if len(res.Migrate) == 0 {
		return nil
	}
	yes := true
	marks := map[string]*structs.DesiredTransition{}
	seen := map[structs.NamespacedID]bool{}
	var evals []*structs.Evaluation
	for _, a := range res.Migrate {
		marks[a.ID] = &structs.DesiredTransition{Migrate: &yes}
		key := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
		if seen[key] {
			continue
		}
		seen[key] = true
		evals = append(evals, drainEval(a, jobs[key], n.ID, now))
	}
	d.cfg.Logger.Info("marking allocs for migration", "node", n.ID, "allocs", len(marks), "forced", res.Forced)
	return d.cfg.Writer.MarkMigrate(marks, evals)
}

// drainEval is the eval that makes the scheduler act on the marks.
func drainEval(a *structs.Allocation, job *structs.Job, nodeID string, now time.Time) *structs.Evaluation {
	if job == nil {
		job = a.Job
	}
	ev := &structs.Evaluation{
		ID: structs.GenerateUUID(), Namespace: a.Namespace, JobID: a.JobID, NodeID: nodeID,
		TriggeredBy: structs.EvalTriggerNodeDrain, Status: structs.EvalStatusPending,
		Priority: structs.DefaultJobPriority, Type: structs.JobTypeService,
		CreateTime: now.UnixNano(), ModifyTime: now.UnixNano(),
	}
	if job != nil {
		ev.Priority, ev.Type, ev.JobModifyIndex = job.Priority, job.Type, job.JobModifyIndex
	}
	return ev
}
