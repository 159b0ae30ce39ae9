package agent

import (
	"context"
	"net/http"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/structs"
)

// ClientGCer is the optional part of the agent's own client (the
// LogSource, client.Client) that garbage collects its allocations
// (client/allocgc). Errors are *structs.CodedError: 404 an allocation the
// client does not hold, 400 one still running.
type ClientGCer interface {
	// GCAlloc destroys one terminal allocation now.
	GCAlloc(ctx context.Context, allocID string) error
	// GCNode destroys every terminal allocation now.
	GCNode(ctx context.Context) (int, error)
}

// clientGCRoutes registers node gc and alloc gc. The official client
// calls both with GET (Nodes().GC, Allocations().GC); PUT and POST are
// served too.
func (s *httpServer) clientGCRoutes(h func(string, handlerFunc)) {
	for _, m := range []string{"GET", "PUT", "POST"} {
		h(m+" /v1/client/gc", s.nodeGC)
		h(m+" /v1/client/allocation/{id}/gc", s.clientRoute("id", acl.NamespaceCapabilityAllocLifecycle, s.allocGC))
	}
}

// localGC returns the agent's own client's garbage collector, or a 501.
func (s *httpServer) localGC() (ClientGCer, error) {
	gc, ok := s.Logs.(ClientGCer)
	if s.Logs == nil || !ok {
		return nil, structs.NewCodedError(http.StatusNotImplemented, "this agent runs no client")
	}
	return gc, nil
}

// nodeGC serves /v1/client/gc?node_id=: every terminal allocation of the
// node is destroyed now (Nomad's node gc). Without node_id, or with this
// agent's client's, it is this client; another node's request goes to it
// through its node tunnel (http_client_forward.go; 502 when no server
// reaches it). Answers 200 with an empty body, as Nomad (the official
// client decodes none).
func (s *httpServer) nodeGC(w http.ResponseWriter, r *http.Request) (any, error) {
	node := r.URL.Query().Get("node_id")
	if node != "" && (s.Logs == nil || node != s.Logs.NodeID()) {
		if s.Nodes == nil || r.Header.Get(forwardedHeader) != "" {
			return nil, structs.NewCodedError(structs.ErrCodeNotFound, "node %s is not reachable from this agent", node)
		}
		return nil, s.forwardToNode(w, r, node)
	}
	gc, err := s.localGC()
	if err != nil {
		return nil, err
	}
	n, err := gc.GCNode(r.Context())
	if err != nil {
		return nil, err
	}
	s.Logger.Info("node gc: destroyed the terminal allocations", "count", n)
	return nil, nil
}

// allocGC serves /v1/client/allocation/:id/gc on the agent whose client
// holds the allocation (clientRoute forwards it there): a terminal
// allocation is destroyed now; 400 while it runs, 404 when the servers do
// not know it or the client does not hold it (collected already), 501 on
// an agent without that client and no way to forward.
func (s *httpServer) allocGC(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	q.MinQueryIndex, q.AllowStale = 0, true
	alloc, _, err := s.getAlloc(id, q)
	if err != nil {
		return nil, err
	}
	if alloc == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "unknown allocation %q", id)
	}
	gc, err := s.localGC()
	if err != nil {
		return nil, err
	}
	if alloc.NodeID != s.Logs.NodeID() {
		return nil, structs.NewCodedError(http.StatusNotImplemented, "allocation %s is not on this agent's client (node %s)", id, alloc.NodeID)
	}
	if err := gc.GCAlloc(r.Context(), id); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}
