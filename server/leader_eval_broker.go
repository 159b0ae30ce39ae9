package server

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// watchEvalBrokerPause runs on the leader: it follows the scheduler
// configuration's PauseEvalBroker, as Nomad's leader does. Paused, the
// broker and blocked evals are disabled (flushed: no evaluation is handed
// to a worker, Eval.Delete may delete); unpaused, they are enabled again
// and refilled from the state store as on a leadership gain.
func (s *Server) watchEvalBrokerPause(ctx context.Context) {
	paused := false // establishLeadership left them enabled
	for {
		st := s.State()
		ws := memdb.NewWatchSet()
		ws.Add(st.AbandonCh())
		cfg, err := st.SchedulerConfig(ws)
		if err != nil {
			s.logger.Error("reading the scheduler configuration", "error", err)
		} else if cfg.PauseEvalBroker != paused {
			paused = cfg.PauseEvalBroker
			if err := s.setEvalBrokerPaused(paused); err != nil {
				s.logger.Error("resuming the eval broker", "error", err)
			}
		}
		if ws.WatchCtx(ctx) != nil {
			// Leadership lost: revokeLeadership disabled both before
			// cancelling ctx, but a resume racing it may have enabled them
			// again; revokeLeadership waits for this goroutine.
			s.broker.SetEnabled(false)
			s.blocked.SetEnabled(false)
			return
		}
	}
}

// setEvalBrokerPaused disables or re-enables (and refills) the broker and
// blocked evals.
func (s *Server) setEvalBrokerPaused(paused bool) error {
	if paused {
		s.broker.SetEnabled(false)
		s.blocked.SetEnabled(false)
		s.logger.Info("eval broker paused by the scheduler configuration")
		return nil
	}
	s.broker.SetEnabled(true)
	s.blocked.SetEnabled(true)
	evals, err := s.State().Snapshot().Evals(nil)
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
	s.logger.Info("eval broker resumed", "evals_restored", len(evals))
	return nil
}
