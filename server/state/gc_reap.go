package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// ReapGC deletes, in one transaction at index, what the leader's garbage
// collector chose (server/gc). Every object is checked again here, at
// apply time, and kept when it is live: a job must still be GC-eligible
// with every allocation GC-safe and every evaluation terminal (a parent
// also without live children), and is then purged with all its
// evaluations, allocations and deployments; a listed evaluation must be
// terminal, an allocation GC-safe, a deployment inactive with no live
// allocation, a node down with no live allocation. Objects of a listed job
// that was kept are kept too. Unknown IDs are ignored. It returns what was
// deleted.
func (s *StateStore) ReapGC(index uint64, req *structs.GCReapRequest) (*structs.GCReapResponse, error) {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{}
	out := &structs.GCReapResponse{}
	kept := map[structs.NamespacedID]bool{}
	for _, id := range req.Jobs {
		ok, err := reapJobTxn(txn, index, id, out, c)
		if err != nil {
			return nil, err
		}
		if ok {
			if err := deleteJobVersionsTxn(txn, index, id.Namespace, id.ID); err != nil {
				return nil, err
			}
			if err := deletePeriodicLaunchTxn(txn, index, id.Namespace, id.ID); err != nil {
				return nil, err
			}
		} else {
			kept[id] = true
		}
	}
	skip := func(ns, job string) bool { return kept[structs.NamespacedID{Namespace: ns, ID: job}] }
	if err := reapEvalsTxn(txn, req.Evals, skip, out, c); err != nil {
		return nil, err
	}
	if err := reapAllocsTxn(txn, index, req.Allocs, skip, out, c); err != nil {
		return nil, err
	}
	if err := reapDeploymentsTxn(txn, req.Deployments, skip, out); err != nil {
		return nil, err
	}
	if err := reapNodesTxn(txn, req.Nodes, out); err != nil {
		return nil, err
	}
	if err := reapIndexesTxn(txn, index, out); err != nil {
		return nil, err
	}
	return out, s.commit(txn, index, c)
}

// reapJobTxn purges one job with its evaluations, allocations and
// deployments when it is still collectable; false when it is not (or is
// gone already).
func reapJobTxn(txn *memdb.Txn, index uint64, id structs.NamespacedID, out *structs.GCReapResponse, c *changes) (bool, error) {
	raw, err := txn.First(tableJobs, "id", id.Namespace, id.ID)
	if err != nil {
		return false, fmt.Errorf("looking up job %q: %w", id.ID, err)
	}
	if raw == nil {
		return false, nil
	}
	job := raw.(*structs.Job)
	if !job.GCEligible() {
		return false, nil
	}
	allocs, err := allocsBy(txn, nil, "job", id.Namespace, id.ID)
	if err != nil {
		return false, err
	}
	for _, a := range allocs {
		if !a.GCSafe() {
			return false, nil
		}
	}
	evals, err := evalsByJobTxn(txn, nil, id.Namespace, id.ID)
	if err != nil {
		return false, err
	}
	for _, e := range evals {
		if !e.TerminalStatus() {
			return false, nil
		}
	}
	if job.IsParent() {
		live, err := liveChildrenTxn(txn, job)
		if err != nil || live {
			return false, err
		}
	}
	if err := txn.Delete(tableJobs, job); err != nil {
		return false, fmt.Errorf("deleting job %q: %w", id.ID, err)
	}
	out.Jobs++
	c.stopped = append(c.stopped, id)
	for _, e := range evals {
		if err := txn.Delete(tableEvals, e); err != nil {
			return false, fmt.Errorf("deleting eval %q: %w", e.ID, err)
		}
		out.Evals++
	}
	for _, a := range allocs {
		if err := deleteAllocTxn(txn, index, a); err != nil {
			return false, err
		}
		out.Allocs++
	}
	n, err := txn.DeleteAll(tableDeployments, "job", id.Namespace, id.ID)
	if err != nil {
		return false, fmt.Errorf("deleting deployments of job %q: %w", id.ID, err)
	}
	out.Deployments += n
	return true, nil
}

// liveChildrenTxn reports whether a parent job has a child that is not
// dead (children are named "<parent>/...").
func liveChildrenTxn(txn *memdb.Txn, parent *structs.Job) (bool, error) {
	it, err := txn.Get(tableJobs, "id_prefix", parent.Namespace, parent.ID+"/")
	if err != nil {
		return false, fmt.Errorf("listing children of job %q: %w", parent.ID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		child := raw.(*structs.Job)
		if child.ParentID == parent.ID && child.Status != structs.JobStatusDead {
			return true, nil
		}
	}
	return false, nil
}

func reapEvalsTxn(txn *memdb.Txn, ids []string, skip func(ns, job string) bool, out *structs.GCReapResponse, c *changes) error {
	for _, id := range ids {
		raw, err := txn.First(tableEvals, "id", id)
		if err != nil {
			return fmt.Errorf("looking up eval %q: %w", id, err)
		}
		if raw == nil {
			continue
		}
		e := raw.(*structs.Evaluation)
		if !e.TerminalStatus() || skip(e.Namespace, e.JobID) {
			continue
		}
		if err := txn.Delete(tableEvals, e); err != nil {
			return fmt.Errorf("deleting eval %q: %w", id, err)
		}
		out.Evals++
		c.touchJob(e.Namespace, e.JobID)
	}
	return nil
}

func reapAllocsTxn(txn *memdb.Txn, index uint64, ids []string, skip func(ns, job string) bool, out *structs.GCReapResponse, c *changes) error {
	for _, id := range ids {
		raw, err := txn.First(tableAllocs, "id", id)
		if err != nil {
			return fmt.Errorf("looking up alloc %q: %w", id, err)
		}
		if raw == nil {
			continue
		}
		a := raw.(*structs.Allocation)
		if !a.GCSafe() || skip(a.Namespace, a.JobID) {
			continue
		}
		if err := deleteAllocTxn(txn, index, a); err != nil {
			return err
		}
		out.Allocs++
		c.touchJob(a.Namespace, a.JobID)
	}
	return nil
}

// deleteAllocTxn deletes an allocation and any service registration left
// of it, and records the deletion's index for its node
// (NodeAllocsRemovedIndex), so the node's blocking alloc watch answers.
func deleteAllocTxn(txn *memdb.Txn, index uint64, a *structs.Allocation) error {
	if err := txn.Delete(tableAllocs, a); err != nil {
		return fmt.Errorf("deleting alloc %q: %w", a.ID, err)
	}
	if err := moveNodeUsage(txn, a, nil); err != nil {
		return err
	}
	if err := setIndex(txn, nodeAllocsRemovedKey(a.NodeID), index); err != nil {
		return err
	}
	if _, err := deleteServicesTxn(txn, "alloc_id", a.ID); err != nil {
		return fmt.Errorf("deleting services of alloc %q: %w", a.ID, err)
	}
	return nil
}

func reapDeploymentsTxn(txn *memdb.Txn, ids []string, skip func(ns, job string) bool, out *structs.GCReapResponse) error {
	for _, id := range ids {
		raw, err := txn.First(tableDeployments, "id", id)
		if err != nil {
			return fmt.Errorf("looking up deployment %q: %w", id, err)
		}
		if raw == nil {
			continue
		}
		d := raw.(*structs.Deployment)
		if d.Active() || skip(d.Namespace, d.JobID) {
			continue
		}
		allocs, err := allocsBy(txn, nil, "job", d.Namespace, d.JobID)
		if err != nil {
			return err
		}
		if liveAllocOf(allocs, func(a *structs.Allocation) bool { return a.DeploymentID == d.ID }) {
			continue
		}
		if err := txn.Delete(tableDeployments, d); err != nil {
			return fmt.Errorf("deleting deployment %q: %w", id, err)
		}
		out.Deployments++
	}
	return nil
}

func reapNodesTxn(txn *memdb.Txn, ids []string, out *structs.GCReapResponse) error {
	for _, id := range ids {
		raw, err := txn.First(tableNodes, "id", id)
		if err != nil {
			return fmt.Errorf("looking up node %q: %w", id, err)
		}
		if raw == nil {
			continue
		}
		n := raw.(*structs.Node)
		if n.Status != structs.NodeStatusDown {
			continue
		}
		allocs, err := allocsByNode(txn, nil, id)
		if err != nil {
			return err
		}
		if liveAllocOf(allocs, func(*structs.Allocation) bool { return true }) {
			continue
		}
		if err := txn.Delete(tableNodes, n); err != nil {
			return fmt.Errorf("deleting node %q: %w", id, err)
		}
		if err := forgetNodeRowTxn(txn, id); err != nil {
			return err
		}
		if _, err := deleteServicesTxn(txn, "node_id", id); err != nil {
			return fmt.Errorf("deleting services of node %q: %w", id, err)
		}
		out.Nodes++
	}
	return nil
}

// liveAllocOf reports whether an allocation match accepts is not GC-safe.
func liveAllocOf(allocs []*structs.Allocation, match func(*structs.Allocation) bool) bool {
	for _, a := range allocs {
		if match(a) && !a.GCSafe() {
			return true
		}
	}
	return false
}

// reapIndexesTxn moves the index of every table the reap changed, so
// blocking queries on them wake.
func reapIndexesTxn(txn *memdb.Txn, index uint64, out *structs.GCReapResponse) error {
	for _, t := range []struct {
		n     int
		table string
	}{
		{out.Jobs, tableJobs}, {out.Evals, tableEvals}, {out.Allocs, tableAllocs},
		{out.Deployments, tableDeployments}, {out.Nodes, tableNodes},
		{out.Allocs + out.Nodes, tableServiceRegistrations},
	} {
		if t.n == 0 {
			continue
		}
		if err := setIndex(txn, t.table, index); err != nil {
			return err
		}
	}
	return nil
}

// ReconcileJobSummaries recomputes, at index, every job's stored status
// from its allocations and evaluations (Nomad's reconcile summaries; the
// per-group counts are derived at read time here, so the status is what
// can drift).
func (s *StateStore) ReconcileJobSummaries(index uint64) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{}
	it, err := txn.Get(tableJobs, "id")
	if err != nil {
		return fmt.Errorf("listing jobs: %w", err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		j := raw.(*structs.Job)
		c.touchJob(j.Namespace, j.ID)
	}
	return s.commit(txn, index, c)
}

// nodeAllocsRemovedKey is the index-table row recording the latest deletion
// of one of a node's allocations.
func nodeAllocsRemovedKey(nodeID string) string { return "node_allocs_removed/" + nodeID }

// NodeAllocsRemovedIndex is the raft index at which an allocation of the
// node was last deleted (by garbage collection; 0: never). The index a
// node's alloc watch (Node.GetClientAllocs) answers is the highest
// AllocModifyIndex of what remains, which a deletion does not raise: the
// watch takes the larger of the two, so the client hears of the deletion
// and destroys the allocation's directory.
func (r reader) NodeAllocsRemovedIndex(nodeID string) (uint64, error) {
	return r.Index(nodeAllocsRemovedKey(nodeID))
}
