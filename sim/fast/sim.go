package fast

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nomadish/nomadish/server/broker"
	"github.com/nomadish/nomadish/server/endpoints"
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

// stopJob stops a finite service job at the end of its duration, as its
// owner's `job stop` would.
func (s *Sim) stopJob(id string) error {
	job, err := s.store.Snapshot().ReadView().JobByID(structs.DefaultNamespaceName, id)
	if err != nil || job == nil || job.Stop {
		return err
	}
	job = job.Copy()
	job.Stop = true
	now := s.clock().UnixNano()
	e := &structs.Evaluation{ID: s.newEvalID(), Namespace: job.Namespace, Priority: job.Priority, Type: job.Type,
		TriggeredBy: structs.EvalTriggerJobDeregister, JobID: job.ID, Status: structs.EvalStatusPending,
		CreateTime: now, ModifyTime: now}
	if err := s.store.UpsertJob(s.nextIndex(), job, e); err != nil {
		return fmt.Errorf("stopping job %q: %w", id, err)
	}
	if j := s.jobs[id]; j != nil && !j.stopped {
		j.stopped = true
		s.pending -= max(0, j.count-j.placed)
	}
	return nil
}

// clientUpdate writes allocs' client status, as Node.UpdateAlloc.
func (s *Sim) clientUpdate(ids []string, status string) error {
	upd := make([]*structs.Allocation, 0, len(ids))
	for _, id := range ids {
		upd = append(upd, &structs.Allocation{ID: id, ClientStatus: status, ModifyTime: s.clock().UnixNano()})
	}
	if len(upd) == 0 {
		return nil
	}
	return s.store.UpdateAllocsFromClient(s.nextIndex(), upd, nil)
}

// startAllocs reports placed allocs running; batch allocs with a duration
// finish after it.
func (s *Sim) startAllocs(ids []string) error {
	live := s.liveOnly(ids)
	if err := s.clientUpdate(live, structs.AllocClientStatusRunning); err != nil {
		return err
	}
	byEnd := map[time.Duration][]string{}
	var ends []time.Duration
	for _, id := range live {
		if d := s.jobs[s.allocs[id].job].duration; d > 0 && s.jobs[s.allocs[id].job].typ == structs.JobTypeBatch {
			if _, ok := byEnd[d]; !ok {
				ends = append(ends, d)
			}
			byEnd[d] = append(byEnd[d], id)
		}
	}
	for _, d := range ends {
		s.schedule(s.now+d, &event{kind: evFinish, allocs: byEnd[d]})
	}
	return nil
}

// finishAllocs reports allocs complete, freeing their resources.
func (s *Sim) finishAllocs(ids []string) error {
	live := s.liveOnly(ids)
	if err := s.clientUpdate(live, structs.AllocClientStatusComplete); err != nil {
		return err
	}
	for _, id := range live {
		s.release(id)
	}
	return nil
}

// scheduleFailure schedules the next node failure: a Poisson process of
// NodeFailures per node per day over the cluster.
func (s *Sim) scheduleFailure() {
	if s.cfg.NodeFailures <= 0 || len(s.nodeList) == 0 {
		return
	}
	perSec := s.cfg.NodeFailures * float64(len(s.nodeList)) / 86400
	gap := time.Duration(s.rng.ExpFloat64() / perSec * float64(time.Second))
	if gap > 0 && gap < time.Duration(math.MaxInt64/2) {
		s.schedule(s.now+gap, &event{kind: evNodeFail})
	}
}

// failNode takes a random ready node down (its heartbeat TTL expired), with
// a node-update eval for each job on it, as the leader's heartbeat expiry.
func (s *Sim) failNode() error {
	defer s.scheduleFailure()
	n := s.nodeList[s.rng.IntN(len(s.nodeList))]
	if !n.ready {
		return nil
	}
	idx := s.nextIndex()
	if err := s.store.UpdateNodeStatus(idx, n.id, structs.NodeStatusDown, s.clock().UnixNano()); err != nil {
		return err
	}
	n.ready = false
	s.nodesChanged++
	s.evictions += len(n.live)
	s.nodeFailures++
	if _, _, err := endpoints.CreateNodeEvals(s.store, s.applyEvals, s.clock(), n.id, idx); err != nil {
		return fmt.Errorf("creating node-update evals for node %s: %w", n.id, err)
	}
	s.schedule(s.now+s.cfg.NodeDowntime, &event{kind: evNodeReturn, node: n.id})
	return nil
}

// returnNode brings a failed node back ready.
func (s *Sim) returnNode(id string) error {
	idx := s.nextIndex()
	if err := s.store.UpdateNodeStatus(idx, id, structs.NodeStatusReady, s.clock().UnixNano()); err != nil {
		return err
	}
	s.nodes[id].ready = true
	s.nodesChanged++
	_, _, err := endpoints.CreateNodeEvals(s.store, s.applyEvals, s.clock(), id, idx)
	return err
}

// applyEvals is the raft apply the endpoints' eval creation calls.
func (s *Sim) applyEvals(t structs.MessageType, msg any) (uint64, any, error) {
	req, ok := msg.(*structs.EvalUpdateRequest)
	if t != structs.EvalUpdateRequestType || !ok {
		return 0, nil, fmt.Errorf("fast: unexpected raft message %d", t)
	}
	for _, e := range req.Evals {
		s.renameEval(e)
	}
	idx := s.nextIndex()
	return idx, nil, s.store.UpsertEvals(idx, req.Evals)
}
