package server

import "github.com/nomadish/nomadish/structs"

func (f *fsm) applyJobRegister(buf []byte, index uint64) any {
	var req structs.JobRegisterRequest
	decode(buf, &req, index)
	if err := f.State().UpsertJob(index, req.Job, req.Eval); err != nil {
		f.logger.Error("applying job register", "job", req.Job.ID, "error", err)
		return err
	}
	return nil
}

// applyJobDeregister purges the job (Purge) or stores it stopped; the
// server put the stopped copy's flag in place before committing.
func (f *fsm) applyJobDeregister(buf []byte, index uint64) any {
	var req jobDeregisterEntry
	decode(buf, &req, index)
	st := f.State()
	var err error
	if req.Purge || req.Job == nil {
		err = st.DeleteJob(index, req.Namespace, req.JobID, req.Eval)
	} else {
		req.Job.Stop = true
		err = st.UpsertJob(index, req.Job, req.Eval)
	}
	if err != nil {
		f.logger.Error("applying job deregister", "job", req.JobID, "error", err)
		return err
	}
	return nil
}

// jobDeregisterEntry is the raft entry of JobDeregisterRequestType: the
// request (its WriteRequest.Namespace names the job's namespace) plus the job
// to store stopped (nil on purge).
type jobDeregisterEntry struct {
	structs.JobDeregisterRequest
	Job *structs.Job
}
