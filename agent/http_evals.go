package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// evalsList serves GET /v1/evaluations (?prefix=).
func (s *httpServer) evalsList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	reply, err := s.listEvals(q)
	if err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Evaluations, nil
}

func (s *httpServer) listEvals(q structs.QueryOptions) (*structs.EvalListResponse, error) {
	args := structs.EvalListRequest{QueryOptions: q}
	var reply structs.EvalListResponse
	if err := s.RPC.RPC(structs.EvalListRPC, &args, &reply); err != nil {
		return nil, err
	}
	if reply.Evaluations == nil {
		reply.Evaluations = []*structs.Evaluation{}
	}
	return &reply, nil
}

// evalGet serves GET /v1/evaluation/:id (or an unambiguous ID prefix).
// ?related=true is accepted; related evaluations are not listed yet.
func (s *httpServer) evalGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	eval, meta, err := s.getEval(id, q)
	if err != nil {
		return nil, err
	}
	if eval == nil {
		full, err := resolvePrefix("eval", id, func(p string) ([]string, error) {
			lq := structs.QueryOptions{Region: q.Region, Namespace: q.Namespace, AllowStale: q.AllowStale, Prefix: p, AuthToken: q.AuthToken}
			reply, err := s.listEvals(lq)
			if err != nil {
				return nil, err
			}
			ids := make([]string, len(reply.Evaluations))
			for i, e := range reply.Evaluations {
				ids[i] = e.ID
			}
			return ids, nil
		})
		if err != nil {
			return nil, err
		}
		q.MinQueryIndex = 0
		if eval, meta, err = s.getEval(full, q); err != nil {
			return nil, err
		}
		if eval == nil {
			return nil, structs.ErrEvalNotFound
		}
	}
	setMeta(w, meta)
	return eval, nil
}

func (s *httpServer) getEval(id string, q structs.QueryOptions) (*structs.Evaluation, *structs.QueryMeta, error) {
	args := structs.EvalSpecificRequest{EvalID: id, QueryOptions: q}
	var reply structs.SingleEvalResponse
	if err := s.RPC.RPC(structs.EvalGetEvalRPC, &args, &reply); err != nil {
		return nil, nil, err
	}
	return reply.Eval, &reply.QueryMeta, nil
}

// evalAllocations serves GET /v1/evaluation/:id/allocations.
func (s *httpServer) evalAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.EvalSpecificRequest{EvalID: r.PathValue("id"), QueryOptions: q}
	var reply structs.EvalAllocationsResponse
	if err := s.RPC.RPC(structs.EvalAllocationsRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Allocations == nil {
		reply.Allocations = []*structs.AllocListStub{}
	}
	return reply.Allocations, nil
}
