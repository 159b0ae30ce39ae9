package endpoints

import (
	"github.com/hashicorp/go-bexpr"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// maxEvalDeleteIDs bounds one Eval.Delete by IDs (one raft entry), as
// Nomad's 7,281 per request.
const maxEvalDeleteIDs = 7281

// Delete deletes evaluations by ID or by a go-bexpr filter (Nomad's
// Eval.Delete, DELETE /v1/evaluations, `eval delete`), in one raft entry.
// Nomad's rules: a management token; the scheduler configuration's
// PauseEvalBroker must be set (the leader then holds no eval in its broker
// or blocked evals, so none is being scheduled); IDs or a filter, not both
// and not neither; an eval whose allocations are not all terminal is not
// safe to delete (by ID: 400 naming it; by filter: skipped). Unknown IDs
// are a 404. Reply: how many were deleted.
func (e *Eval) Delete(args *structs.EvalDeleteRequest, reply *structs.EvalDeleteResponse) error {
	if err := e.d.allowManagement(args.AuthToken, "delete evaluations"); err != nil {
		return err
	}
	switch {
	case len(args.EvalIDs) > 0 && args.Filter != "":
		return structs.NewCodedError(structs.ErrCodeBadRequest, "evals cannot be deleted by both ID and filter")
	case len(args.EvalIDs) == 0 && args.Filter == "":
		return structs.NewCodedError(structs.ErrCodeBadRequest, "evals must be deleted by either ID or filter")
	case len(args.EvalIDs) > maxEvalDeleteIDs:
		return structs.NewCodedError(structs.ErrCodeBadRequest, "at most %d evals may be deleted by ID at once", maxEvalDeleteIDs)
	}
	snap := e.d.State().Snapshot()
	cfg, err := snap.SchedulerConfig(nil)
	if err != nil {
		return err
	}
	if !cfg.PauseEvalBroker {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "eval broker is enabled; eval broker must be paused to delete evals")
	}
	var ids []string
	if args.Filter != "" {
		ids, err = evalsMatching(snap, args.Filter)
	} else {
		ids, err = evalsDeletable(snap, args.EvalIDs)
	}
	if err != nil {
		return err
	}
	reply.Count = len(ids)
	if len(ids) == 0 {
		return nil
	}
	index, _, err := e.d.Apply(structs.EvalDeleteRequestType, &structs.EvalDeleteEntry{Evals: ids})
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}

// evalsDeletable checks each ID: 404 if unknown, 400 if not safe.
func evalsDeletable(snap *state.StateSnapshot, ids []string) ([]string, error) {
	out := make([]string, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		ev, err := snap.EvalByID(nil, id)
		if err != nil {
			return nil, err
		}
		if ev == nil {
			return nil, structs.NewCodedError(structs.ErrCodeNotFound, "eval %s not found", id)
		}
		ok, err := evalDeleteSafe(snap, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "eval %s is not safe to delete: it has non-terminal allocations", id)
		}
		out = append(out, id)
	}
	return out, nil
}

// evalsMatching returns the safe-to-delete evals the filter selects.
func evalsMatching(snap *state.StateSnapshot, filter string) ([]string, error) {
	ev, err := bexpr.CreateEvaluator(filter)
	if err != nil {
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "invalid filter: %v", err)
	}
	evals, err := snap.Evals(nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range evals {
		match, err := ev.Evaluate(e)
		if err != nil {
			return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "invalid filter: %v", err)
		}
		if !match {
			continue
		}
		if ok, err := evalDeleteSafe(snap, e.ID); err != nil {
			return nil, err
		} else if ok {
			out = append(out, e.ID)
		}
	}
	return out, nil
}

// evalDeleteSafe: every allocation the eval placed is terminal.
func evalDeleteSafe(snap *state.StateSnapshot, id string) (bool, error) {
	allocs, err := snap.AllocsByEval(nil, id)
	if err != nil {
		return false, err
	}
	for _, a := range allocs {
		if !a.TerminalStatus() {
			return false, nil
		}
	}
	return true, nil
}
