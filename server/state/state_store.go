package state

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// Sentinel errors.
var (
	ErrAbandoned = errors.New("state: store abandoned (restored from a snapshot)")
)

// Notifier receives change events after a write is committed (CONVENTIONS
// 10): the leader routes them to the eval broker and blocked evals. Methods
// are called synchronously from the FSM's goroutine, after commit, in commit
// order; implementations must not block for long and must not write to the
// store.
type Notifier interface {
	// EvalsUpserted passes evaluations written with status pending or
	// blocked (others are left out). The slice and evals are the stored
	// objects: read-only.
	EvalsUpserted(evals []*structs.Evaluation)
	// CapacityChanged says capacity may have freed or appeared at index: a
	// node became ready, or allocations stopped or became client-terminal.
	CapacityChanged(index uint64)
	// JobStopped says a job was stopped or purged.
	JobStopped(namespace, jobID string)
}

// ClassNotifier is an optional interface of a Notifier: when a write's
// capacity changes are all on nodes with a computed class, the store calls
// CapacityChangedOn with those classes (sorted, distinct) instead of
// CapacityChanged, so blocked evals that found the classes infeasible stay
// blocked (Nomad's BlockedEvals.Unblock(computedClass, index)).
type ClassNotifier interface {
	CapacityChangedOn(index uint64, classes []string)
}

// CommitObserver is an optional interface of a Notifier: Committed is called
// after every write (after the Notifier's other calls for it), with the
// write's index, from the FSM's goroutine. The randomized concurrency test
// checks its invariants there, after every applied plan.
type CommitObserver interface {
	Committed(index uint64)
}

// StateStore is the server's replicated state. It is safe for concurrent
// use: writes are serialized by memdb (only the FSM writes), reads run on
// MVCC views and never block writes.
type StateStore struct {
	reader
	logger hclog.Logger

	abandonCh   chan struct{}
	abandonOnce sync.Once

	notifyMu sync.RWMutex
	notifier Notifier // guarded by notifyMu
	// publisher is the event stream's (events.go); guarded by notifyMu.
	publisher EventPublisher
}

// StateSnapshot is a read-only, point-in-time view of the store with the
// same read methods.
type StateSnapshot struct {
	reader
}

// reader holds the read methods shared by the store and its snapshots.
type reader struct {
	db *memdb.MemDB
}

// New returns an empty store.
func New(logger hclog.Logger) (*StateStore, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	db, err := memdb.NewMemDB(schema())
	if err != nil {
		return nil, fmt.Errorf("state: creating memdb: %w", err)
	}
	return &StateStore{reader: reader{db: db}, logger: logger.Named("state"), abandonCh: make(chan struct{})}, nil
}

func schema() *memdb.DBSchema {
	return &memdb.DBSchema{Tables: map[string]*memdb.TableSchema{
		tableJobs:                 jobsSchema(),
		tableNodes:                nodesSchema(),
		tableAllocs:               allocsSchema(),
		tableEvals:                evalsSchema(),
		tableIndex:                indexSchema(),
		tableJobVersions:          jobVersionsSchema(),
		tableSchedulerConfig:      schedulerConfigSchema(),
		tableDeployments:          deploymentsSchema(),
		tableNamespaces:           namespacesSchema(),
		tableNodePools:            nodePoolsSchema(),
		tableACLPolicies:          aclPoliciesSchema(),
		tableACLTokens:            aclTokensSchema(),
		tableACLRoles:             aclRolesSchema(),
		tableVariables:            variablesSchema(),
		tableRootKeys:             rootKeysSchema(),
		tablePeriodicLaunch:       periodicLaunchSchema(),       // periodic_launch.go
		tableServiceRegistrations: serviceRegistrationsSchema(), // service_registrations.go
		tableAutopilotConfig:      autopilotConfigSchema(),      // autopilot_config.go
		tableJobSubmissions:       jobSubmissionsSchema(),       // job_submissions.go
		tableNodeUsage:            nodeUsageSchema(),            // node_usage.go (derived)
	}}
}

// SetNotifier sets (or with nil, clears) the change subscriber.
func (s *StateStore) SetNotifier(n Notifier) {
	s.notifyMu.Lock()
	s.notifier = n
	s.notifyMu.Unlock()
}

// Notifier returns the change subscriber (nil if none).
func (s *StateStore) Notifier() Notifier {
	s.notifyMu.RLock()
	defer s.notifyMu.RUnlock()
	return s.notifier
}

// Snapshot returns an MVCC read-only view of the current state.
func (s *StateStore) Snapshot() *StateSnapshot {
	return &StateSnapshot{reader: reader{db: s.db.Snapshot()}}
}

// AbandonCh is closed when the store is replaced (raft snapshot restore):
// blocking queries add it to their watch set and re-read from the new store.
func (s *StateStore) AbandonCh() <-chan struct{} { return s.abandonCh }

// Abandon closes AbandonCh. Called by the FSM after a restore swapped in a
// new store.
func (s *StateStore) Abandon() { s.abandonOnce.Do(func() { close(s.abandonCh) }) }

// SnapshotMinIndex waits until the store's latest index is at least index
// and returns a snapshot. It watches the index table (no polling); it
// returns ctx's error when ctx ends first and ErrAbandoned when the store
// was replaced.
func (s *StateStore) SnapshotMinIndex(ctx context.Context, index uint64) (*StateSnapshot, error) {
	for {
		ws := memdb.NewWatchSet()
		ws.Add(s.abandonCh)
		latest, err := s.LatestIndex(ws)
		if err != nil {
			return nil, err
		}
		if latest >= index {
			return s.Snapshot(), nil
		}
		if err := ws.WatchCtx(ctx); err != nil {
			return nil, fmt.Errorf("waiting for state index %d (at %d): %w", index, latest, err)
		}
		select {
		case <-s.abandonCh:
			return nil, ErrAbandoned
		default:
		}
	}
}

// changes collects what a write did, for the notifier.
type changes struct {
	evals    []*structs.Evaluation
	capacity bool
	// capClasses are the computed classes of the nodes whose capacity
	// changed; capAll: some change had no class (every blocked eval may
	// place more). See capacityOn.
	capClasses map[string]struct{}
	capAll     bool
	stopped    []structs.NamespacedID
	jobs       map[structs.NamespacedID]struct{} // jobs whose status to recompute
	// event is the stream's event type of the write (events.go); empty:
	// each table's default.
	event string
}

func (c *changes) touchJob(namespace, id string) {
	if c.jobs == nil {
		c.jobs = map[structs.NamespacedID]struct{}{}
	}
	c.jobs[structs.NamespacedID{Namespace: namespace, ID: id}] = struct{}{}
}

// commit finishes a write: recomputes the statuses of touched jobs, commits
// and notifies.
func (s *StateStore) commit(txn *memdb.Txn, index uint64, c *changes) error {
	if err := setJobStatuses(txn, index, c.jobs); err != nil {
		return err
	}
	var evs []structs.Event
	p := s.EventPublisher()
	if p != nil {
		evs = eventsFromChanges(index, c.event, txn.Changes())
	}
	txn.Commit()
	if len(evs) > 0 {
		p.Publish(index, evs)
	}
	n := s.Notifier()
	if n == nil {
		return nil
	}
	if len(c.evals) > 0 {
		n.EvalsUpserted(c.evals)
	}
	for _, j := range c.stopped {
		n.JobStopped(j.Namespace, j.ID)
	}
	if c.capacity {
		notifyCapacity(n, index, c)
	}
	if o, ok := n.(CommitObserver); ok {
		o.Committed(index)
	}
	return nil
}
