package fsm

import "github.com/nomadish/nomadish/structs"

// applyGCReap deletes what the leader's garbage collector chose; the store
// re-checks each object and keeps what is live. The response is a
// *structs.GCReapResponse (what was deleted) or an error.
func (f *FSM) applyGCReap(buf []byte, index uint64) any {
	var req structs.GCReapRequest
	decode(buf, &req, index)
	resp, err := f.State().ReapGC(index, &req)
	if err != nil {
		f.logger.Error("applying GC reap", "error", err)
		return err
	}
	return resp
}

// applyJobSummaryReconcile recomputes every job's status.
func (f *FSM) applyJobSummaryReconcile(buf []byte, index uint64) any {
	var req structs.JobSummaryReconcileRequest
	decode(buf, &req, index)
	if err := f.State().ReconcileJobSummaries(index); err != nil {
		f.logger.Error("applying job summary reconcile", "error", err)
		return err
	}
	return nil
}
