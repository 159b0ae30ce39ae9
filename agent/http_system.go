package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// systemRoutes registers Nomad's /v1/system API (management tokens;
// http_acl_routes.go): a forced garbage collection and the job summaries
// reconcile. Both answer an empty 200 once committed, as Nomad.
func (s *httpServer) systemRoutes(h func(string, handlerFunc)) {
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/system/gc", s.systemGC)
		h(m+" /v1/system/reconcile/summaries", s.systemReconcileSummaries)
	}
}

// systemGC serves PUT /v1/system/gc: System.GarbageCollect.
func (s *httpServer) systemGC(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.systemCall(w, r, structs.SystemGarbageCollectRPC)
}

// systemReconcileSummaries serves PUT /v1/system/reconcile/summaries:
// System.ReconcileJobSummaries.
func (s *httpServer) systemReconcileSummaries(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.systemCall(w, r, structs.SystemReconcileJobSummariesRPC)
}

func (s *httpServer) systemCall(w http.ResponseWriter, r *http.Request, method string) (any, error) {
	args := structs.SystemGCRequest{WriteRequest: s.parseWrite(r)}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(method, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
