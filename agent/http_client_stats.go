package agent

import (
	"context"
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// HostStatser is the optional part of the agent's own client (the
// LogSource, client.Client) that samples its host's usage.
type HostStatser interface {
	HostStats(ctx context.Context) (*structs.HostStats, error)
}

// statsRoutes registers GET /v1/client/stats.
func (s *httpServer) statsRoutes(h func(string, handlerFunc)) {
	h("GET /v1/client/stats", s.clientStats)
}

// clientStats serves GET /v1/client/stats?node_id=: the host usage of a
// client (Nomad's HostStats: memory, each CPU, the alloc dir's disk, the
// uptime, CPUTicksConsumed in MHz). Without node_id, or with this agent's
// client's, this client answers; another node's request goes to it
// through its node tunnel, like node gc (502 when no server reaches it,
// 404 when this agent cannot forward); 501 on an agent without a client.
func (s *httpServer) clientStats(w http.ResponseWriter, r *http.Request) (any, error) {
	node := r.URL.Query().Get("node_id")
	if node != "" && (s.Logs == nil || node != s.Logs.NodeID()) {
		if s.Nodes == nil || r.Header.Get(forwardedHeader) != "" {
			return nil, structs.NewCodedError(structs.ErrCodeNotFound, "node %s is not reachable from this agent", node)
		}
		return nil, s.forwardToNode(w, r, node)
	}
	hs, ok := s.Logs.(HostStatser)
	if s.Logs == nil || !ok {
		return nil, structs.NewCodedError(http.StatusNotImplemented, "this agent runs no client")
	}
	return hs.HostStats(r.Context())
}
