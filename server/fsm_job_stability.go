package server

import "github.com/nomadish/nomadish/structs"

// applyJobStability is the FSM side of JobStabilityRequestType.
func (f *fsm) applyJobStability(buf []byte, index uint64) any {
	var req structs.JobStabilityRequest
	decode(buf, &req, index)
	if err := f.State().UpdateJobStability(index, req.Namespace, req.JobID, req.JobVersion, req.Stable); err != nil {
		f.logger.Error("applying job stability", "job", req.JobID, "version", req.JobVersion, "error", err)
		return err
	}
	return nil
}
