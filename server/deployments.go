package server

import (
	"github.com/nomadish/nomadish/server/deploymentwatcher"
	"github.com/nomadish/nomadish/structs"
)

// newDeploymentWatcher builds the leader's deployment watcher over the
// current state store, committing through raft.
func (s *Server) newDeploymentWatcher() *deploymentwatcher.Watcher {
	return deploymentwatcher.New(deploymentwatcher.Config{
		State:  func() deploymentwatcher.State { return s.State() },
		Writer: deploymentWriter{s},
		Logger: s.logger,
	})
}

// deploymentWriter commits the watcher's decisions through raft.
type deploymentWriter struct{ s *Server }

func (w deploymentWriter) UpdateDeploymentStatus(req *structs.DeploymentStatusUpdateRequest) error {
	_, _, err := w.s.raftApply(structs.DeploymentStatusUpdateRequestType, req)
	return err
}

func (w deploymentWriter) PromoteDeployment(req *structs.DeploymentPromoteRequest) error {
	_, _, err := w.s.raftApply(structs.DeploymentPromoteRequestType, req)
	return err
}

func (w deploymentWriter) CreateEvals(evals []*structs.Evaluation) error {
	_, _, err := w.s.raftApply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals})
	return err
}
