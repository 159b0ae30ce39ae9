package fsm

import "github.com/nomadish/nomadish/structs"

func (f *FSM) applyDeploymentStatusUpdate(buf []byte, index uint64) any {
	var req structs.DeploymentStatusUpdateRequest
	decode(buf, &req, index)
	if err := f.State().UpdateDeploymentStatus(index, &req); err != nil {
		f.logger.Error("applying deployment status update", "error", err)
		return err
	}
	return nil
}

func (f *FSM) applyDeploymentPromote(buf []byte, index uint64) any {
	var req structs.DeploymentPromoteRequest
	decode(buf, &req, index)
	if err := f.State().UpdateDeploymentPromotion(index, &req); err != nil {
		f.logger.Error("applying deployment promotion", "error", err)
		return err
	}
	return nil
}
