package scheduler

import (
	"fmt"

	"github.com/nomadish/nomadish/scheduler/reconcile"
	"github.com/nomadish/nomadish/structs"
)

// DeploymentState is an optional interface of State: a store that keeps
// deployments gives the scheduler the job's latest one, so that rollouts
// continue across evals. Without it every eval starts a fresh deployment.
type DeploymentState interface {
	// LatestDeploymentByJobID returns the job's newest deployment, or
	// nil,nil.
	LatestDeploymentByJobID(namespace, jobID string) (*structs.Deployment, error)
}

// latestDeployment reads the job's latest deployment when state keeps them.
func latestDeployment(state State, namespace, jobID string) (*structs.Deployment, error) {
	ds, ok := state.(DeploymentState)
	if !ok {
		return nil, nil
	}
	d, err := ds.LatestDeploymentByJobID(namespace, jobID)
	if err != nil {
		return nil, fmt.Errorf("looking up deployment of job %q: %w", jobID, err)
	}
	return d, nil
}

// applyDeployment adds the reconciler's deployment decisions to the plan:
// the deployment to create, the cancelled ones, and the in-place updates
// (each alloc gets the new job, its resized cpu and memory (inplace.go), and
// joins the deployment, its health reset).
func (s *genericScheduler) applyDeployment(res *reconcile.Result) {
	if res.DeploymentCreated {
		s.plan.Deployment = res.Deployment
	}
	s.plan.DeploymentUpdates = res.DeploymentUpdates
	s.inplace = make(map[string]bool, len(res.InPlace))
	for _, a := range res.InPlace {
		s.inplace[a.ID] = true
		n := a.Copy()
		n.Job = s.job
		applyInPlaceResources(n, s.job)
		n.EvalID = s.eval.ID
		n.ModifyTime = s.now().UnixNano()
		if id := s.deploymentIDFor(n.TaskGroup); id != "" && id != n.DeploymentID {
			n.DeploymentID, n.DeploymentStatus = id, nil
		}
		s.plan.AppendAlloc(n)
	}
}

// deploymentIDFor returns the ID of the active deployment the group's new
// allocs join, or "".
func (s *genericScheduler) deploymentIDFor(group string) string {
	d := s.deployment
	if d == nil || !d.Active() || d.TaskGroups[group] == nil {
		return ""
	}
	return d.ID
}

// markDeployment sets a new alloc's deployment fields.
func (s *genericScheduler) markDeployment(a *structs.Allocation, p reconcile.Placement) {
	a.DeploymentID = s.deploymentIDFor(p.TaskGroup.Name)
	if p.Canary && a.DeploymentID != "" {
		a.DeploymentStatus = &structs.AllocDeploymentStatus{Canary: true}
	}
}
