package server

import (
	"context"

	"github.com/nomadish/nomadish/server/periodic"
	"github.com/nomadish/nomadish/structs"
)

// runPeriodic runs the periodic launcher until leadership ends.
func (s *Server) runPeriodic(ctx context.Context) {
	l, err := periodic.New(periodic.Config{
		State: func() periodic.State { return s.State() },
		Apply: func(r *structs.PeriodicLaunchRequest) error {
			_, _, err := s.raftApply(structs.PeriodicLaunchRequestType, r)
			return err
		},
		Clock:  s.cfg.Clock,
		Logger: s.logger,
	})
	if err != nil {
		s.logger.Error("periodic launcher not started", "error", err)
		return
	}
	l.Run(ctx)
}
