package state

import (
	"fmt"
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableDeployments keeps every deployment, keyed by ID.
const tableDeployments = "deployment"

// TableDeployments is the table name for blocking queries on deployments.
const TableDeployments = tableDeployments

// recordDeployment is the persisted snapshot record of a deployment (taken
// past the others, like recordJobVersion).
const recordDeployment recordType = 17

func deploymentsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableDeployments,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
			"job": {Name: "job", Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				&memdb.StringFieldIndex{Field: "Namespace"},
				&memdb.StringFieldIndex{Field: "JobID"},
			}}},
		},
	}
}

// UpsertDeployment writes a deployment at index.
func (s *StateStore) UpsertDeployment(index uint64, d *structs.Deployment) error {
	txn := s.writeTxn()
	defer txn.Abort()
	if err := upsertDeploymentTxn(txn, index, d); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

func upsertDeploymentTxn(txn *memdb.Txn, index uint64, d *structs.Deployment) error {
	raw, err := txn.First(tableDeployments, "id", d.ID)
	if err != nil {
		return fmt.Errorf("looking up deployment %q: %w", d.ID, err)
	}
	if raw != nil {
		d.CreateIndex = raw.(*structs.Deployment).CreateIndex
	} else {
		d.CreateIndex = index
	}
	d.ModifyIndex = index
	if err := txn.Insert(tableDeployments, d); err != nil {
		return fmt.Errorf("inserting deployment %q: %w", d.ID, err)
	}
	return setIndex(txn, tableDeployments, index)
}

// deploymentCopyTxn returns a copy of a stored deployment to modify, or nil.
func deploymentCopyTxn(txn *memdb.Txn, id string) (*structs.Deployment, error) {
	raw, err := txn.First(tableDeployments, "id", id)
	if err != nil {
		return nil, fmt.Errorf("looking up deployment %q: %w", id, err)
	}
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.Deployment).Copy(), nil
}

// planDeploymentsTxn writes a plan's deployment and status updates, then
// counts the allocs the plan placed into a deployment (new ones, and
// in-place updates that joined it).
func planDeploymentsTxn(txn *memdb.Txn, index uint64, req *structs.ApplyPlanResultsRequest, joined []*structs.Allocation) error {
	if req.Deployment != nil {
		if err := upsertDeploymentTxn(txn, index, req.Deployment.Copy()); err != nil {
			return err
		}
	}
	for _, u := range req.DeploymentUpdates {
		if err := setDeploymentStatusTxn(txn, index, u); err != nil {
			return err
		}
	}
	touched := map[string]*structs.Deployment{}
	for _, a := range joined {
		d := touched[a.DeploymentID]
		if d == nil {
			var err error
			if d, err = deploymentCopyTxn(txn, a.DeploymentID); err != nil {
				return err
			}
			if d == nil {
				continue
			}
			touched[a.DeploymentID] = d
		}
		st := d.TaskGroups[a.TaskGroup]
		if st == nil {
			continue
		}
		st.PlacedAllocs++
		if a.DeploymentStatus.IsCanary() && !slices.Contains(st.PlacedCanaries, a.ID) {
			st.PlacedCanaries = append(st.PlacedCanaries, a.ID)
		}
	}
	for _, d := range touched {
		if err := upsertDeploymentTxn(txn, index, d); err != nil {
			return err
		}
	}
	return nil
}

// setDeploymentStatusTxn changes a deployment's status (unknown: ignored).
func setDeploymentStatusTxn(txn *memdb.Txn, index uint64, u *structs.DeploymentStatusUpdate) error {
	d, err := deploymentCopyTxn(txn, u.DeploymentID)
	if err != nil || d == nil {
		return err
	}
	d.Status, d.StatusDescription = u.Status, u.StatusDescription
	return upsertDeploymentTxn(txn, index, d)
}

// allocHealthTxn counts a client's new health report of an alloc in its
// deployment: healthy or unhealthy, and a healthy alloc moves the group's
// progress deadline on.
func allocHealthTxn(txn *memdb.Txn, index uint64, old, cur *structs.Allocation) error {
	if cur.DeploymentID == "" || cur.DeploymentStatus == nil || cur.DeploymentStatus.Healthy == nil {
		return nil
	}
	if old.DeploymentStatus != nil && old.DeploymentStatus.Healthy != nil {
		return nil // already counted
	}
	d, err := deploymentCopyTxn(txn, cur.DeploymentID)
	if err != nil || d == nil {
		return err
	}
	st := d.TaskGroups[cur.TaskGroup]
	if st == nil {
		return nil
	}
	if *cur.DeploymentStatus.Healthy {
		st.HealthyAllocs++
		if st.ProgressDeadline > 0 && !cur.DeploymentStatus.Timestamp.IsZero() {
			if by := cur.DeploymentStatus.Timestamp.Add(st.ProgressDeadline); by.After(st.RequireProgressBy) {
				st.RequireProgressBy = by
			}
		}
	} else {
		st.UnhealthyAllocs++
	}
	return upsertDeploymentTxn(txn, index, d)
}

// UpdateDeploymentStatus applies a deployment status change with its
// optional eval, job to register (an auto-revert) and stability mark.
func (s *StateStore) UpdateDeploymentStatus(index uint64, req *structs.DeploymentStatusUpdateRequest) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{}
	d, err := deploymentCopyTxn(txn, req.DeploymentUpdate.DeploymentID)
	if err != nil {
		return err
	}
	if d == nil {
		return structs.NewCodedError(structs.ErrCodeNotFound, "deployment %q not found", req.DeploymentUpdate.DeploymentID)
	}
	if err := setDeploymentStatusTxn(txn, index, req.DeploymentUpdate); err != nil {
		return err
	}
	if req.MarkStable {
		if err := markStableTxn(txn, index, d); err != nil {
			return err
		}
	}
	if req.Job != nil {
		if err := upsertJobTxn(txn, index, req.Job, c); err != nil {
			return err
		}
	}
	if req.Eval != nil {
		req.Eval.JobModifyIndex = index
		if err := upsertEvalsTxn(txn, index, []*structs.Evaluation{req.Eval}, c); err != nil {
			return err
		}
	}
	return s.commit(txn, index, c)
}

// markStableTxn marks the deployed version of the job stable: its kept
// version and, when it is still the current one, the job.
func markStableTxn(txn *memdb.Txn, index uint64, d *structs.Deployment) error {
	raw, err := txn.First(tableJobVersions, "id", d.Namespace, d.JobID, d.JobVersion)
	if err != nil {
		return fmt.Errorf("looking up version %d of job %q: %w", d.JobVersion, d.JobID, err)
	}
	if raw != nil {
		cp := *raw.(*structs.Job)
		cp.Stable = true
		if err := txn.Insert(tableJobVersions, &cp); err != nil {
			return fmt.Errorf("marking version %d of job %q stable: %w", d.JobVersion, d.JobID, err)
		}
		if err := setIndex(txn, tableJobVersions, index); err != nil {
			return err
		}
	}
	cur, err := txn.First(tableJobs, "id", d.Namespace, d.JobID)
	if err != nil {
		return fmt.Errorf("looking up job %q: %w", d.JobID, err)
	}
	if cur == nil || cur.(*structs.Job).Version != d.JobVersion {
		return nil
	}
	jc := *cur.(*structs.Job)
	jc.Stable = true
	jc.ModifyIndex = index
	if err := txn.Insert(tableJobs, &jc); err != nil {
		return fmt.Errorf("updating job %q: %w", d.JobID, err)
	}
	return setIndex(txn, tableJobs, index)
}

// UpdateDeploymentPromotion promotes the canaries of all (or the named)
// groups of a deployment and writes the eval that continues the rollout.
func (s *StateStore) UpdateDeploymentPromotion(index uint64, req *structs.DeploymentPromoteRequest) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{event: structs.TypeDeploymentPromotion}
	d, err := deploymentCopyTxn(txn, req.DeploymentID)
	if err != nil {
		return err
	}
	if d == nil {
		return structs.NewCodedError(structs.ErrCodeNotFound, "deployment %q not found", req.DeploymentID)
	}
	for name, st := range d.TaskGroups {
		if req.All || slices.Contains(req.Groups, name) {
			st.Promoted = true
		}
	}
	if !d.RequiresPromotion() && d.Status == structs.DeploymentStatusRunning {
		d.StatusDescription = structs.DeploymentStatusDescriptionRunning
	}
	if err := upsertDeploymentTxn(txn, index, d); err != nil {
		return err
	}
	if err := clearPromotedCanariesTxn(txn, index, d, c); err != nil {
		return err
	}
	if req.Eval != nil {
		req.Eval.JobModifyIndex = index
		if err := upsertEvalsTxn(txn, index, []*structs.Evaluation{req.Eval}, c); err != nil {
			return err
		}
	}
	return s.commit(txn, index, c)
}

// clearPromotedCanariesTxn clears the Canary mark of the placed canaries of
// d's promoted groups, as Nomad does on promotion: their clients see the
// change (AllocModifyIndex) and register their services with the normal
// tags instead of the canary_tags.
func clearPromotedCanariesTxn(txn *memdb.Txn, index uint64, d *structs.Deployment, c *changes) error {
	for _, st := range d.TaskGroups {
		if !st.Promoted {
			continue
		}
		for _, id := range st.PlacedCanaries {
			raw, err := txn.First(tableAllocs, "id", id)
			if err != nil {
				return fmt.Errorf("looking up canary %q: %w", id, err)
			}
			if raw == nil || !raw.(*structs.Allocation).DeploymentStatus.IsCanary() {
				continue
			}
			old := raw.(*structs.Allocation)
			a := *old // shallow: only the deployment status changes
			ds := *a.DeploymentStatus
			ds.Canary, ds.ModifyIndex = false, index
			a.DeploymentStatus = &ds
			a.ModifyIndex, a.AllocModifyIndex = index, index
			if err := putAllocTxn(txn, old, &a); err != nil {
				return fmt.Errorf("promoting canary: %w", err)
			}
			c.touchJob(a.Namespace, a.JobID)
		}
	}
	return setIndex(txn, tableAllocs, index)
}

// joinedDeploymentTxn returns the placed allocs that join a deployment with
// this write: new ones with a DeploymentID, and existing ones whose
// DeploymentID changes (in-place updates).
func joinedDeploymentTxn(txn *memdb.Txn, placed []*structs.Allocation) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for _, a := range placed {
		if a.DeploymentID == "" {
			continue
		}
		raw, err := txn.First(tableAllocs, "id", a.ID)
		if err != nil {
			return nil, fmt.Errorf("looking up alloc %q: %w", a.ID, err)
		}
		if raw == nil || raw.(*structs.Allocation).DeploymentID != a.DeploymentID {
			out = append(out, a)
		}
	}
	return out, nil
}

// mergeClientHealth takes the health a client reports for the alloc's
// current deployment (a report for an older deployment is dropped) and
// counts it in the deployment.
func mergeClientHealth(txn *memdb.Txn, index uint64, old, a, upd *structs.Allocation) error {
	if upd.DeploymentStatus == nil || upd.DeploymentStatus.Healthy == nil ||
		(upd.DeploymentID != "" && upd.DeploymentID != old.DeploymentID) {
		return nil
	}
	ds := *upd.DeploymentStatus
	ds.Canary = old.DeploymentStatus.IsCanary()
	ds.ModifyIndex = index
	if old.DeploymentStatus != nil && old.DeploymentStatus.Healthy != nil {
		return nil // the first report stands
	}
	a.DeploymentStatus = &ds
	return allocHealthTxn(txn, index, old, a)
}
