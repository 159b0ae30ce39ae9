package server

import (
	"context"

	"github.com/nomadish/nomadish/internal/clock"
	"github.com/nomadish/nomadish/server/endpoints"

	"github.com/nomadish/nomadish/server/drainer"
	"github.com/nomadish/nomadish/structs"
)

// runDrainer runs the node drainer until leadership ends.
func (s *Server) runDrainer(ctx context.Context) {
	d := drainer.New(drainer.Config{
		State:  func() drainer.State { return s.State() },
		Writer: drainWriter{apply: s.raftApply, clock: s.cfg.Clock},
		Logger: s.logger,
		Clock:  s.cfg.Clock,
	})
	d.Run(ctx)
}

// drainWriter commits the drainer's decisions through raft.
type drainWriter struct {
	apply endpoints.ApplyFunc
	clock clock.Clock // stamps the drain's completion
}

func (w drainWriter) MarkMigrate(marks map[string]*structs.DesiredTransition, evals []*structs.Evaluation) error {
	_, _, err := w.apply(structs.AllocUpdateDesiredTransitionRequestType,
		&structs.AllocUpdateDesiredTransitionRequest{Allocs: marks, Evals: evals})
	return err
}

func (w drainWriter) CompleteDrain(nodeID string, event *structs.NodeEvent) error {
	_, _, err := w.apply(structs.NodeUpdateDrainRequestType, &structs.NodeUpdateDrainRequest{
		NodeID: nodeID, NodeEvent: event, UpdatedAt: w.clock.Now().UnixNano(),
	})
	return err
}
