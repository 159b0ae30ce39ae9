package server

import "github.com/nomadish/nomadish/structs"

func (f *fsm) applyEvalUpdate(buf []byte, index uint64) any {
	var req structs.EvalUpdateRequest
	decode(buf, &req, index)
	if err := f.State().UpsertEvals(index, req.Evals); err != nil {
		f.logger.Error("applying eval update", "error", err)
		return err
	}
	return nil
}

// evalDeleteEntry is the raft entry of EvalDeleteRequestType.
type evalDeleteEntry struct {
	Evals []string
}

func (f *fsm) applyEvalDelete(buf []byte, index uint64) any {
	var req evalDeleteEntry
	decode(buf, &req, index)
	if err := f.State().DeleteEvals(index, req.Evals); err != nil {
		f.logger.Error("applying eval delete", "error", err)
		return err
	}
	return nil
}
