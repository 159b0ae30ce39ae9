package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// evalsDelete serves DELETE /v1/evaluations (api.EvalDeleteRequest: EvalIDs
// or Filter; the official client's Evaluations().Delete and DeleteOpts):
// Eval.Delete's rules (management token, PauseEvalBroker set). Answers
// api.EvalDeleteResponse.
func (s *httpServer) evalsDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	var args structs.EvalDeleteRequest
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	args.WriteRequest = s.parseWrite(r)
	var reply structs.EvalDeleteResponse
	if err := s.RPC.RPC(structs.EvalDeleteRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return reply, nil
}
