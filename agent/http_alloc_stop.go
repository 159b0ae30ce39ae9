package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// allocStop serves PUT/POST /v1/allocation/:id/stop (no body): the servers
// mark the allocation to migrate and create an "alloc-stop" evaluation, so
// the scheduler stops it and places a replacement. Answers
// {"EvalID": ..., "Index": ...} with X-Nomad-Index; 404 unknown alloc.
func (s *httpServer) allocStop(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.AllocStopRequest{AllocID: r.PathValue("id"), WriteRequest: s.parseWrite(r)}
	var reply structs.AllocStopResponse
	if err := s.RPC.RPC(structs.AllocStopRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return reply, nil
}
