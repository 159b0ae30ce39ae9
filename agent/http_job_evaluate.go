package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// jobEvaluate serves PUT|POST /v1/job/:id/evaluate (api.JobEvaluateRequest;
// the official client's Jobs().EvaluateWithOpts): a new evaluation of the
// job, answered as a registration (EvalID, EvalCreateIndex).
func (s *httpServer) jobEvaluate(w http.ResponseWriter, r *http.Request) (any, error) {
	var args structs.JobEvaluateRequest
	if r.ContentLength != 0 {
		if err := decodeBody(r, &args); err != nil {
			return nil, err
		}
	}
	args.JobID = r.PathValue("id")
	args.WriteRequest = s.parseWrite(r)
	var reply structs.JobRegisterResponse
	if err := s.RPC.RPC(structs.JobEvaluateRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return reply, nil
}
