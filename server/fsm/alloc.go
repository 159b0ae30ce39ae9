package fsm

import "github.com/nomadish/nomadish/structs"

func (f *FSM) applyAllocUpdate(buf []byte, index uint64) any {
	var req structs.AllocUpdateRequest
	decode(buf, &req, index)
	st := f.State()
	if err := st.UpsertAllocs(index, req.Alloc); err != nil {
		f.logger.Error("applying alloc update", "error", err)
		return err
	}
	if len(req.Evals) > 0 {
		if err := st.UpsertEvals(index, req.Evals); err != nil {
			return err
		}
	}
	return nil
}

func (f *FSM) applyAllocClientUpdate(buf []byte, index uint64) any {
	var req structs.AllocUpdateRequest
	decode(buf, &req, index)
	for _, a := range req.Alloc {
		if a.ModifyTime == 0 {
			a.ModifyTime = req.UpdatedAt
		}
	}
	if err := f.State().UpdateAllocsFromClient(index, req.Alloc, req.Evals); err != nil {
		f.logger.Error("applying client alloc update", "error", err)
		return err
	}
	return nil
}

func (f *FSM) applyPlanResults(buf []byte, index uint64) any {
	var req structs.ApplyPlanResultsRequest
	decode(buf, &req, index)
	shareDecoded(req.AllocsPlaced)
	if err := f.State().UpsertPlanResults(index, &req); err != nil {
		f.logger.Error("applying plan results", "eval", req.EvalID, "error", err)
		return err
	}
	return nil
}
