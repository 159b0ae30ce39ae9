package schedulertest

import (
	"time"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/structs"
)

var _ scheduler.DeploymentState = (*Store)(nil)

// LatestDeploymentByJobID returns the job's newest deployment, or nil.
func (s *Store) LatestDeploymentByJobID(namespace, jobID string) (*structs.Deployment, error) {
	var out *structs.Deployment
	for _, d := range s.deployments {
		if d.Namespace == namespace && d.JobID == jobID && (out == nil || d.CreateIndex > out.CreateIndex) {
			out = d
		}
	}
	return out, nil
}

// Deployment returns a deployment by ID, or nil.
func (s *Store) Deployment(id string) *structs.Deployment { return s.deployments[id] }

// UpsertDeployment adds or replaces a deployment.
func (s *Store) UpsertDeployment(d *structs.Deployment) {
	idx := s.bump()
	s.putDeployment(d, idx)
}

func (s *Store) putDeployment(d *structs.Deployment, idx uint64) {
	if s.deployments == nil {
		s.deployments = map[string]*structs.Deployment{}
	}
	if old := s.deployments[d.ID]; old != nil {
		d.CreateIndex = old.CreateIndex
	} else {
		d.CreateIndex = idx
	}
	d.ModifyIndex = idx
	s.deployments[d.ID] = d
}

// applyPlanDeployments commits a plan's deployment changes at idx and
// counts the placed allocs of a deployment (as the real store does).
func (s *Store) applyPlanDeployments(plan *structs.Plan, placed []*structs.Allocation, idx uint64) {
	if plan.Deployment != nil {
		s.putDeployment(plan.Deployment, idx)
	}
	for _, u := range plan.DeploymentUpdates {
		if d := s.deployments[u.DeploymentID]; d != nil {
			d.Status, d.StatusDescription, d.ModifyIndex = u.Status, u.StatusDescription, idx
		}
	}
	for _, a := range placed {
		d := s.deployments[a.DeploymentID]
		if d == nil || d.TaskGroups[a.TaskGroup] == nil {
			continue
		}
		st := d.TaskGroups[a.TaskGroup]
		if a.CreateIndex == idx || (a.DeploymentStatus == nil && a.ModifyIndex == idx) {
			st.PlacedAllocs++
			if a.DeploymentStatus.IsCanary() {
				st.PlacedCanaries = append(st.PlacedCanaries, a.ID)
			}
		}
	}
}

// SetAllocHealth records a client's health report for an alloc of a
// deployment and counts it in the deployment, like the real store.
func (s *Store) SetAllocHealth(id string, healthy bool, now time.Time) {
	a := s.allocs[id]
	if a == nil {
		return
	}
	idx := s.bump()
	c := a.Copy()
	ds := &structs.AllocDeploymentStatus{Healthy: &healthy, Timestamp: now, ModifyIndex: idx}
	if a.DeploymentStatus != nil {
		ds.Canary = a.DeploymentStatus.Canary
	}
	c.DeploymentStatus = ds
	c.ClientStatus = structs.AllocClientStatusRunning
	c.ModifyIndex = idx
	s.index1(c)
	if d := s.deployments[a.DeploymentID]; d != nil && d.TaskGroups[a.TaskGroup] != nil {
		if healthy {
			d.TaskGroups[a.TaskGroup].HealthyAllocs++
		} else {
			d.TaskGroups[a.TaskGroup].UnhealthyAllocs++
		}
	}
}
