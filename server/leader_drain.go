package server

import (
	"context"

	"github.com/nomadish/nomadish/server/drainer"
	"github.com/nomadish/nomadish/structs"
)

// runDrainer runs the node drainer until leadership ends.
func (s *Server) runDrainer(ctx context.Context) {
	d := drainer.New(drainer.Config{
		State:  func() drainer.State { return s.State() },
		Writer: drainWriter{s},
		Logger: s.logger,
	})
	d.Run(ctx)
}

// drainWriter commits the drainer's decisions through raft.
type drainWriter struct{ s *Server }

func (w drainWriter) MarkMigrate(marks map[string]*structs.DesiredTransition, evals []*structs.Evaluation) error {
	_, _, err := w.s.raftApply(structs.AllocUpdateDesiredTransitionRequestType,
		&structs.AllocUpdateDesiredTransitionRequest{Allocs: marks, Evals: evals})
	return err
}

func (w drainWriter) CompleteDrain(nodeID string, event *structs.NodeEvent) error {
	_, _, err := w.s.raftApply(structs.NodeUpdateDrainRequestType, &structs.NodeUpdateDrainRequest{
		NodeID: nodeID, NodeEvent: event, UpdatedAt: w.s.cfg.Clock.Now().UnixNano(),
	})
	return err
}
