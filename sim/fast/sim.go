package fast

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/server/broker"
	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/sim/cluster"
	"github.com/nomadish/nomadish/sim/report"
	"github.com/nomadish/nomadish/structs"
)

// epoch is simulated time zero (a fixed date: runs replay exactly).
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Sim is one run's world. Everything in it is owned by the event loop
// (Run): the scheduler coroutines run only when the loop resumes them.
type Sim struct {
	cfg     Config
	store   *state.StateStore
	applier *planapply.Applier
	blocked *broker.BlockedEvals

	events eventHeap
	seq    uint64
	now    time.Duration
	index  uint64

	evalIDs, allocIDs uint64

	// The broker: ready evals, the jobs with an eval in flight and the
	// evals waiting for them; evals the blocked set just released.
	ready    readyQueue
	readySeq uint64
	inflight map[jobKey]bool
	waiting  map[jobKey][]*structs.Evaluation
	released []*structs.Evaluation

	workers     []*worker
	applierFree time.Duration
	rng         *rand.Rand

	// nodesChanged counts node writes; nodesCache is the node list read
	// at nodesCacheAt (nodes_cache.go).
	nodesChanged, nodesCacheAt uint64
	nodesCache                 []*structs.Node
	readyCache                 scheduler.ReadyCache

	jobs map[string]*jobInfo
	// err is a failure found where no error can be returned (fail).
	err error
	stats
}

// jobInfo is what the simulator tracks of one trace job.
type jobInfo struct {
	arrival, duration time.Duration
	typ               string
	count, placed     int
	// stopping: a stop is scheduled; stopped: it happened.
	dequeued, placedAll, stopping, stopped bool
}

// Run simulates cfg and reports what it measured.
func Run(cfg Config) (*report.Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s, err := newSim(cfg.withDefaults())
	if err != nil {
		return nil, err
	}
	wall := time.Now()
	if err := s.loop(); err != nil {
		return nil, err
	}
	r := s.report()
	r.WallTime = time.Since(wall)
	return r, nil
}

func newSim(cfg Config) (*Sim, error) {
	store, err := state.New(hclog.NewNullLogger())
	if err != nil {
		return nil, fmt.Errorf("creating the state store: %w", err)
	}
	s := &Sim{cfg: cfg, store: store, inflight: map[jobKey]bool{}, waiting: map[jobKey][]*structs.Evaluation{},
		jobs: map[string]*jobInfo{}, rng: rand.New(rand.NewPCG(cfg.Seed, 0x6661696c)), // "fail"
	}
	s.stats.init(cfg)
	s.blocked = broker.NewBlockedEvals(unblocked{s}, nil)
	s.blocked.SetEnabled(true)
	s.applier = planapply.New(planapply.Config{State: planState{store}, Commit: committer{s}, Now: s.clock})
	store.SetNotifier(notifier{s})

	sc := structs.DefaultSchedulerConfiguration()
	sc.SchedulerAlgorithm = cfg.Algorithm
	sc.PreemptionConfig.ServiceSchedulerEnabled = cfg.Preemption
	sc.PreemptionConfig.BatchSchedulerEnabled = cfg.Preemption
	if _, err := store.SchedulerSetConfig(s.nextIndex(), sc, false); err != nil {
		return nil, fmt.Errorf("setting the scheduler config: %w", err)
	}
	for _, n := range cluster.Build(cfg.Cluster, cfg.Seed) {
		n.StatusUpdatedAt = epoch.UnixNano()
		if err := store.UpsertNode(s.nextIndex(), n); err != nil {
			return nil, fmt.Errorf("registering node %s: %w", n.Name, err)
		}
		s.addNode(n)
	}
	for i := range cfg.Workers {
		s.workers = append(s.workers, &worker{id: i})
	}
	for i, j := range cfg.Trace.Jobs {
		if _, dup := s.jobs[j.ID]; dup {
			return nil, fmt.Errorf("%w: trace job %d: id %q repeats", ErrBadConfig, i, j.ID)
		}
		s.jobs[j.ID] = &jobInfo{arrival: j.Arrival, duration: j.Duration, typ: j.Type, count: j.Count}
		s.schedule(j.Arrival, &event{kind: evArrive, job: i})
	}
	s.schedule(0, &event{kind: evSample})
	s.scheduleFailure()
	return s, nil
}

// clock is the simulated wall clock the scheduler and applier read.
func (s *Sim) clock() time.Time { return epoch.Add(s.now) }

// loop runs events in time order until the run's duration.
func (s *Sim) loop() error {
	defer s.abandon()
	for s.events.Len() > 0 {
		ev := heap.Pop(&s.events).(*event)
		if ev.at > s.cfg.Duration {
			break
		}
		s.now = ev.at
		if err := s.handle(ev); err != nil {
			return fmt.Errorf("at %s: %w", s.now, err)
		}
		s.takeReleased()
		if s.err != nil {
			return fmt.Errorf("at %s: %w", s.now, s.err)
		}
		s.dispatch()
		s.blockedPeak = max(s.blockedPeak, s.blocked.Stats().TotalBlocked)
	}
	s.now = s.cfg.Duration
	return nil
}

// fail records the first error found where none can be returned; the
// loop stops on it.
func (s *Sim) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// abandon ends the coroutines of workers still busy at the end.
func (s *Sim) abandon() {
	for _, w := range s.workers {
		if w.stop != nil {
			w.stop()
		}
	}
}

func (s *Sim) handle(ev *event) error {
	switch ev.kind {
	case evArrive:
		return s.arrive(ev.job)
	case evEnqueue:
		s.enqueue(ev.eval)
	case evPlan:
		return s.applyPlan(ev)
	case evResume:
		s.resume(ev.w, 0)
	case evWorkerDone:
		return s.workerDone(ev.w)
	case evStart:
		return s.startAllocs(ev.allocs)
	case evFinish:
		return s.finishAllocs(ev.allocs)
	case evStopJob:
		return s.stopJob(ev.eval.JobID)
	case evNodeFail:
		return s.failNode()
	case evNodeReturn:
		return s.returnNode(ev.node)
	case evSample:
		s.sample()
		s.schedule(s.now+s.cfg.SampleEvery, &event{kind: evSample})
	}
	return nil
}

// dispatch gives ready evals to idle workers, one eval per job at a time.
func (s *Sim) dispatch() {
	for _, w := range s.workers {
		if w.busy {
			continue
		}
		for s.ready.Len() > 0 {
			e := heap.Pop(&s.ready).(readyEval).eval
			k := jobKey{e.Namespace, e.JobID}
			if s.inflight[k] {
				s.waiting[k] = append(s.waiting[k], e)
				continue
			}
			s.start(w, e)
			break
		}
		if s.ready.Len() == 0 {
			return
		}
	}
}

// arrive registers trace job i with its register eval, as Job.Register.
func (s *Sim) arrive(i int) error {
	tj := s.cfg.Trace.Jobs[i]
	job := toJob(tj)
	now := s.clock().UnixNano()
	job.SubmitTime = now
	e := &structs.Evaluation{ID: s.newEvalID(), Namespace: job.Namespace, Priority: job.Priority, Type: job.Type,
		TriggeredBy: structs.EvalTriggerJobRegister, JobID: job.ID, Status: structs.EvalStatusPending,
		CreateTime: now, ModifyTime: now}
	if err := s.store.UpsertJob(s.nextIndex(), job, e); err != nil {
		return fmt.Errorf("registering job %q: %w", job.ID, err)
	}
	s.jobCount++
	s.pending += tj.Count
	return nil
}
