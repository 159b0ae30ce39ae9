package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/nomadish/nomadish/server/heartbeat"

	"github.com/nomadish/nomadish/server/broker"
	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/server/worker"
	"github.com/nomadish/nomadish/structs"
)

// schedulerTypes are the eval types the workers dequeue.
var schedulerTypes = []string{structs.JobTypeService, structs.JobTypeBatch, structs.JobTypeSystem, structs.JobTypeSysBatch}

// leaderState tracks the leader duties. Owned by the leadership monitor
// goroutine (establish/revoke); ready() may be read from any goroutine.
type leaderState struct {
	mu      sync.Mutex
	isReady bool
	readyCh chan struct{} // closed when leader duties run; replaced on revoke
	cancel  context.CancelFunc
	wg      *sync.WaitGroup
}

func (l *leaderState) init() { l.readyCh = make(chan struct{}) }

// ready returns a channel closed once leader duties run, and whether they
// already do.
func (l *leaderState) ready() (<-chan struct{}, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.readyCh, l.isReady
}

// setupLeaderDuties builds the broker, blocked evals, plan applier and
// heartbeat timers (all disabled until leadership) and returns the state
// store subscriber that routes the FSM's writes to them.
func (s *Server) setupLeaderDuties() state.Notifier {
	s.broker = broker.NewEvalBroker(broker.BrokerConfig{Logger: s.logger, Clock: s.cfg.Clock})
	s.blocked = broker.NewBlockedEvals(s.broker, s.logger)
	s.planner = planapply.New(planapply.Config{State: planState{s.State}, Commit: planCommitter{s.raftApply}, Logger: s.logger, Now: s.cfg.Clock.Now})
	s.heartbeats = heartbeat.New(s.cfg.Clock, s.cfg.MinHeartbeatTTL, s.cfg.HeartbeatGrace, s.cfg.MaxHeartbeatsPerSecond, s.invalidateHeartbeat)
	return &leaderNotifier{broker: s.broker, blocked: s.blocked}
}

// leaderNotifier routes state store changes to the leader's duties. On a
// follower the broker and blocked evals are disabled and ignore them.
type leaderNotifier struct {
	broker  *broker.EvalBroker
	blocked *broker.BlockedEvals
}

func (n *leaderNotifier) EvalsUpserted(evals []*structs.Evaluation) {
	for _, e := range evals {
		switch e.Status {
		case structs.EvalStatusPending:
			n.broker.Enqueue(e)
		case structs.EvalStatusBlocked:
			n.blocked.Block(e)
		}
	}
}

func (n *leaderNotifier) CapacityChanged(index uint64) { n.blocked.Unblock(index) }
func (n *leaderNotifier) CapacityChangedOn(index uint64, classes []string) {
	n.blocked.UnblockClasses(index, classes)
}
func (n *leaderNotifier) JobStopped(namespace, jobID string) { n.blocked.UntrackJob(namespace, jobID) }

// monitorLeadership starts and stops leader duties as raft leadership
// changes, until shutdown.
func (s *Server) monitorLeadership() {
	defer s.wg.Done()
	for {
		select {
		case isLeader := <-s.leaderNotifyCh:
			if !isLeader {
				s.revokeLeadership()
				continue
			}
			if err := s.establishLeadership(); err != nil {
				s.logger.Error("establishing leadership", "error", err)
				s.revokeLeadership()
			}
		case <-s.shutdownCh:
			return
		}
	}
}

// establishLeadership waits for the FSM to apply every committed entry, then
// enables the broker and blocked evals, re-queues evals from state and
// starts the plan applier, the workers, heartbeat timers and the eval
// reapers.
func (s *Server) establishLeadership() error {
	if err := s.cluster.Barrier(raftApplyTimeout); err != nil {
		return fmt.Errorf("raft barrier: %w", err)
	}
	if err := s.cluster.UpdateOwnAddress(raftApplyTimeout); err != nil {
		return err
	}
	s.initAutopilotConfig() // autopilot_init.go
	s.broker.SetEnabled(true)
	s.blocked.SetEnabled(true)
	snap := s.State().Snapshot()
	evals, err := snap.Evals(nil)
	if err != nil {
		return err
	}
	for _, e := range evals {
		switch e.Status {
		case structs.EvalStatusPending:
			s.broker.Enqueue(e)
		case structs.EvalStatusBlocked:
			s.blocked.Block(e)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	wg := &sync.WaitGroup{}
	run := func(f func(context.Context)) {
		wg.Add(1)
		go func() { defer wg.Done(); f(ctx) }()
	}
	run(s.planner.Run)
	for i := 0; i < s.cfg.NumSchedulers; i++ {
		w := worker.New(worker.Config{
			Broker: s.broker, Plans: s.planner, State: stateWaiter{s.State}, Evals: evalWriter{s.raftApply},
			Schedulers: schedulerTypes, Logger: s.logger, // Blocked: nil: leaderNotifier re-blocks upserted blocked evals
			Now: s.cfg.Clock.Now, // the clock node status times come from (disconnect windows)
		})
		run(w.Run)
	}
	run(s.reapFailedEvals)
	run(s.newDeploymentWatcher().Run)
	run(s.reapCancelledEvals)
	run(s.runDrainer)
	run(s.runPeriodic)          // leader_periodic.go
	run(s.runGC)                // leader_gc.go
	run(s.publishMetrics)       // leader_metrics.go
	run(s.watchEvalBrokerPause) // leader_eval_broker.go
	if s.cfg.ACL.Enabled {
		run(s.reapExpiredTokens) // acl_gc.go
	}
	if err := s.initHeartbeats(snap); err != nil {
		cancel()
		wg.Wait()
		return err
	}
	s.leader.mu.Lock()
	s.leader.cancel, s.leader.wg = cancel, wg
	s.leader.isReady = true
	close(s.leader.readyCh)
	s.leader.mu.Unlock()
	s.logger.Info("leadership established", "evals_restored", len(evals))
	return nil
}

// revokeLeadership stops every leader duty and waits for them. Safe to call
// when not leading.
func (s *Server) revokeLeadership() {
	s.broker.SetEnabled(false)
	s.blocked.SetEnabled(false)
	s.heartbeats.SetEnabled(false)
	s.leader.mu.Lock()
	cancel, wg := s.leader.cancel, s.leader.wg
	s.leader.cancel, s.leader.wg = nil, nil
	if s.leader.isReady {
		s.leader.isReady = false
		s.leader.readyCh = make(chan struct{})
	}
	s.leader.mu.Unlock()
	if cancel != nil {
		cancel()
		wg.Wait()
	}
}

// initHeartbeats starts a timer for every node that is not down: clients
// must heartbeat the new leader within a TTL.
func (s *Server) initHeartbeats(snap *state.StateSnapshot) error {
	nodes, err := snap.Nodes(nil)
	if err != nil {
		return err
	}
	s.heartbeats.SetEnabled(true)
	for _, n := range nodes {
		if n.Status != structs.NodeStatusDown {
			s.heartbeats.Reset(n.ID, len(nodes))
		}
	}
	return nil
}

// reapFailedEvals marks evals over the broker's delivery limit failed.
func (s *Server) reapFailedEvals(ctx context.Context) {
	for {
		select {
		case e := <-s.broker.FailedEvals():
			f := e.Copy()
			f.Status = structs.EvalStatusFailed
			f.StatusDescription = "evaluation reached its delivery limit"
			if _, _, err := s.raftApply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: []*structs.Evaluation{f}}); err != nil {
				s.logger.Error("marking eval failed", "eval", e.ID, "error", err)
			}
		case <-ctx.Done():
			return
		}
	}
}

// reapCancelledEvals writes blocked evals superseded by newer ones as
// canceled.
func (s *Server) reapCancelledEvals(ctx context.Context) {
	for {
		select {
		case <-s.blocked.CancelledNotify():
			evals := s.blocked.Cancelled()
			if len(evals) == 0 {
				continue
			}
			if _, _, err := s.raftApply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals}); err != nil {
				s.logger.Error("cancelling superseded blocked evals", "error", err)
			}
		case <-ctx.Done():
			return
		}
	}
}
