package server

import (
	"github.com/nomadish/nomadish/server/deploymentwatcher"
	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/structs"
)

// newDeploymentWatcher builds the leader's deployment watcher over the
// current state store, committing through raft.
func (s *Server) newDeploymentWatcher() *deploymentwatcher.Watcher {
	return deploymentwatcher.New(deploymentwatcher.Config{
		State:  func() deploymentwatcher.State { return s.State() },
		Writer: deploymentWriter{s.raftApply},
		Logger: s.logger,
		Clock:  s.cfg.Clock,
	})
}

// deploymentWriter commits the watcher's decisions through raft.
type deploymentWriter struct{ apply endpoints.ApplyFunc }

func (w deploymentWriter) UpdateDeploymentStatus(req *structs.DeploymentStatusUpdateRequest) error {
	_, _, err := w.apply(structs.DeploymentStatusUpdateRequestType, req)
	return err
}

func (w deploymentWriter) PromoteDeployment(req *structs.DeploymentPromoteRequest) error {
	_, _, err := w.apply(structs.DeploymentPromoteRequestType, req)
	return err
}

func (w deploymentWriter) CreateEvals(evals []*structs.Evaluation) error {
	_, _, err := w.apply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals})
	return err
}
