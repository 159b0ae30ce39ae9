package endpoints

import (
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/paginate"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Eval serves the Eval.* RPCs.
type Eval struct{ d *Deps }

// List lists evaluations (namespace and ID prefix filters); blocking.
func (e *Eval) List(args *structs.EvalListRequest, reply *structs.EvalListResponse) error {
	keep, err := e.d.namespaceFilter(args.AuthToken, listNamespace(args.Namespace), capReadJob)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableEvals}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		evals, err := st.Evals(ws)
		if err != nil {
			return 0, err
		}
		reply.Evaluations = make([]*structs.Evaluation, 0, len(evals))
		for _, ev := range evals {
			if inNamespace(args.Namespace, ev.Namespace) && strings.HasPrefix(ev.ID, args.Prefix) && (keep == nil || keep(ev.Namespace)) {
				reply.Evaluations = append(reply.Evaluations, ev)
			}
		}
		if reply.Evaluations, err = pageList(reply.Evaluations, paginate.ByCreateIndex, evalKey, &args.QueryOptions, &reply.QueryMeta); err != nil {
			return 0, err
		}
		return st.Index(state.TableEvals)
	})
}

// GetEval reads one evaluation (nil when absent); blocking.
func (e *Eval) GetEval(args *structs.EvalSpecificRequest, reply *structs.SingleEvalResponse) error {
	a, accessor, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		ev, err := st.EvalByID(ws, args.EvalID)
		if err != nil {
			return 0, err
		}
		if ev != nil && !a.AllowNamespaceOperation(ev.Namespace, capReadJob) {
			return 0, e.d.denied(accessor, ev.Namespace, capReadJob)
		}
		reply.Eval = ev
		if ev != nil {
			return ev.ModifyIndex, nil
		}
		return st.Index(state.TableEvals)
	})
}

// Allocations lists the allocations an evaluation placed; blocking.
func (e *Eval) Allocations(args *structs.EvalSpecificRequest, reply *structs.EvalAllocationsResponse) error {
	a, _, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableAllocs}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		allocs, err := st.AllocsByEval(ws, args.EvalID)
		if err != nil {
			return 0, err
		}
		reply.Allocations = structs.AllocStubs(allowedAllocs(a, allocs))
		return st.Index(state.TableAllocs)
	})
}
