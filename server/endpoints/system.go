package endpoints

import (
	"github.com/nomadish/nomadish/structs"
)

// System serves the System.* RPCs: a forced garbage collection and the
// reconciliation of job summaries, both with a management token (as
// Nomad), both on the leader (they are writes).
type System struct{ d *Deps }

// GarbageCollect collects, at once, everything finished (every GC
// threshold at zero) and answers when the reap entries are committed.
func (s *System) GarbageCollect(args *structs.SystemGCRequest, reply *structs.GenericResponse) error {
	if err := s.d.allowManagement(args.AuthToken, "system gc"); err != nil {
		return err
	}
	if s.d.ForceGC == nil {
		return structs.NewCodedError(structs.ErrCodeInternal, "garbage collection is not available on this server")
	}
	if _, err := s.d.ForceGC(); err != nil {
		return err
	}
	idx, err := s.d.State().LatestIndex(nil)
	if err != nil {
		return err
	}
	reply.Index = idx
	return nil
}

// ReconcileJobSummaries recomputes every job's status through raft.
func (s *System) ReconcileJobSummaries(args *structs.SystemGCRequest, reply *structs.GenericResponse) error {
	if err := s.d.allowManagement(args.AuthToken, "system reconcile summaries"); err != nil {
		return err
	}
	index, _, err := s.d.Apply(structs.JobSummaryReconcileRequestType, &structs.JobSummaryReconcileRequest{})
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}
