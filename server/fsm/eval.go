package fsm

import "github.com/nomadish/nomadish/structs"

func (f *FSM) applyEvalUpdate(buf []byte, index uint64) any {
	var req structs.EvalUpdateRequest
	decode(buf, &req, index)
	if err := f.State().UpsertEvals(index, req.Evals); err != nil {
		f.logger.Error("applying eval update", "error", err)
		return err
	}
	return nil
}

func (f *FSM) applyEvalDelete(buf []byte, index uint64) any {
	var req structs.EvalDeleteEntry
	decode(buf, &req, index)
	if err := f.State().DeleteEvals(index, req.Evals); err != nil {
		f.logger.Error("applying eval delete", "error", err)
		return err
	}
	return nil
}
