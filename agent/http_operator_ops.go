package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// opsRoutes registers the operator's routes of issue 15: raft leadership
// transfer (here), autopilot (http_autopilot.go), the agent's log monitor
// (http_monitor.go) and dynamic node metadata (http_node_meta.go).
func (s *httpServer) opsRoutes(h func(string, handlerFunc)) {
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/operator/raft/transfer-leadership", s.raftTransferLeadership)
	}
	s.autopilotRoutes(h)
	h("GET /v1/agent/monitor", s.agentMonitor) // http_monitor.go
	s.nodeMetaRoutes(h)                        // http_node_meta.go
}

// raftTransferLeadership serves PUT /v1/operator/raft/transfer-leadership
// ?id=ID or ?address=IP:PORT (at most one; neither lets raft pick a voter):
// the leader hands raft leadership to that voter. 200 with no body once
// raft has done it; 400 for both or an unknown peer.
func (s *httpServer) raftTransferLeadership(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	args := structs.RaftTransferLeadershipRequest{ID: q.Get("id"), Address: q.Get("address"), WriteRequest: s.parseWrite(r)}
	if args.ID != "" && args.Address != "" {
		return nil, badRequest("Must specify only one of ?id or ?address")
	}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(structs.OperatorRaftTransferLeadershipRPC, &args, &reply); err != nil {
		return nil, err
	}
	return nil, nil
}
