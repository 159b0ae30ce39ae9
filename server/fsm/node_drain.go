package fsm

import "github.com/nomadish/nomadish/structs"

func (f *FSM) applyNodeUpdateDrain(buf []byte, index uint64) any {
	var req structs.NodeUpdateDrainRequest
	decode(buf, &req, index)
	if err := f.State().UpdateNodeDrain(index, req.NodeID, req.DrainStrategy, req.MarkEligible, req.NodeEvent, req.UpdatedAt); err != nil {
		f.logger.Error("applying node drain", "node", req.NodeID, "error", err)
		return err
	}
	return nil
}

func (f *FSM) applyNodeUpdateEligibility(buf []byte, index uint64) any {
	var req structs.NodeUpdateEligibilityRequest
	decode(buf, &req, index)
	if err := f.State().UpdateNodeEligibility(index, req.NodeID, req.Eligibility, req.NodeEvent, req.UpdatedAt); err != nil {
		f.logger.Error("applying node eligibility", "node", req.NodeID, "error", err)
		return err
	}
	return nil
}

func (f *FSM) applyAllocDesiredTransition(buf []byte, index uint64) any {
	var req structs.AllocUpdateDesiredTransitionRequest
	decode(buf, &req, index)
	if err := f.State().UpdateAllocsDesiredTransitions(index, req.Allocs, req.Evals); err != nil {
		f.logger.Error("applying alloc desired transitions", "error", err)
		return err
	}
	return nil
}
