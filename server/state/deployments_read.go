package state

import (
	"fmt"
	"sort"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// Reads of the deployments table (writes: deployments.go).

// DeploymentByID returns a deployment or nil.
func (r reader) DeploymentByID(ws memdb.WatchSet, id string) (*structs.Deployment, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableDeployments, "id", id)
	if err != nil {
		return nil, fmt.Errorf("looking up deployment %q: %w", id, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.Deployment), nil
}

// Deployments returns the deployments of namespace ("" or "*": all),
// newest first.
func (r reader) Deployments(ws memdb.WatchSet, namespace string) ([]*structs.Deployment, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableDeployments, "id")
	if err != nil {
		return nil, fmt.Errorf("listing deployments: %w", err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.Deployment
	for raw := it.Next(); raw != nil; raw = it.Next() {
		d := raw.(*structs.Deployment)
		if namespace == "" || namespace == "*" || d.Namespace == namespace {
			out = append(out, d)
		}
	}
	sortNewestFirst(out)
	return out, nil
}

// DeploymentsByJobID returns a job's deployments, newest first.
func (r reader) DeploymentsByJobID(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Deployment, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableDeployments, "job", namespace, jobID)
	if err != nil {
		return nil, fmt.Errorf("listing deployments of job %q: %w", jobID, err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.Deployment
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.Deployment))
	}
	sortNewestFirst(out)
	return out, nil
}

// LatestDeploymentByJobID returns a job's newest deployment, or nil.
func (r reader) LatestDeploymentByJobID(ws memdb.WatchSet, namespace, jobID string) (*structs.Deployment, error) {
	all, err := r.DeploymentsByJobID(ws, namespace, jobID)
	if err != nil || len(all) == 0 {
		return nil, err
	}
	return all[0], nil
}

// AllocsByDeployment returns the allocations of a deployment.
func (r reader) AllocsByDeployment(ws memdb.WatchSet, id string) ([]*structs.Allocation, error) {
	d, err := r.DeploymentByID(ws, id)
	if err != nil || d == nil {
		return nil, err
	}
	all, err := r.AllocsByJob(ws, d.Namespace, d.JobID)
	if err != nil {
		return nil, err
	}
	var out []*structs.Allocation
	for _, a := range all {
		if a.DeploymentID == id {
			out = append(out, a)
		}
	}
	return out, nil
}

func sortNewestFirst(ds []*structs.Deployment) {
	sort.Slice(ds, func(i, j int) bool { return ds[i].CreateIndex > ds[j].CreateIndex })
}
