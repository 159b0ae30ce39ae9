package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/structs"
)

// forwardedHeader marks a request an agent forwarded to the client of the
// node it names: the receiving agent answers it from its own client and
// never forwards it again, so a request cannot loop.
const forwardedHeader = "X-Nomadish-Forwarded-To-Node"

// NodeDialer opens a connection to the client-only HTTP API of a node's
// client (over the node tunnel its client keeps to a server:
// server.(*Server).DialNode in a server agent, the servers' RPCNodeDial in
// a client-only one). A node no server can reach is a *structs.CodedError
// 502 (server/nodeconn.ErrNoPath).
type NodeDialer interface {
	DialNode(ctx context.Context, nodeID string) (net.Conn, error)
}

// clientRoute wraps the handler of a client endpoint whose path parameter
// param names an allocation: when the allocation is known and runs on
// another node than this agent's client, the request is reverse-proxied,
// unchanged, to that node's client (streams and WebSocket upgrades
// included), which checks and answers it. Otherwise (unknown allocation,
// lookup errors, a local allocation, a request forwarded already, or no
// NodeDialer) f answers as before.
func (s *httpServer) clientRoute(param, capability string, f handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) (any, error) {
		if err := s.allowAlloc(r, r.PathValue(param), capability); err != nil {
			return nil, err
		}
		if s.Nodes == nil || r.Header.Get(forwardedHeader) != "" {
			return f(w, r)
		}
		node := s.remoteNode(r, r.PathValue(param))
		if node == "" {
			return f(w, r)
		}
		return nil, s.forwardToNode(w, r, node)
	}
}

// allowAlloc asks the servers whether the request's token may use
// capability on allocation id (ACL.AllowAllocOperation: with ACLs off,
// always). It runs on every agent a request passes, before anything is
// served or forwarded; a denial is 403 Permission denied.
func (s *httpServer) allowAlloc(r *http.Request, id, capability string) error {
	q, err := s.parseQuery(r)
	if err != nil {
		return err
	}
	q.MinQueryIndex = 0
	args := structs.ACLAllowAllocRequest{AllocID: id, Task: r.URL.Query().Get("task"), Capability: capability, QueryOptions: q}
	return s.RPC.RPC(structs.ACLAllowAllocOperationRPC, &args, &structs.GenericResponse{})
}

// remoteNode returns the node of allocation id when it is known and not
// this agent's client's, else "".
func (s *httpServer) remoteNode(r *http.Request, id string) string {
	q, err := s.parseQuery(r)
	if err != nil {
		return ""
	}
	q.MinQueryIndex, q.AllowStale = 0, true
	alloc, _, err := s.getAlloc(id, q)
	if err != nil || alloc == nil || alloc.NodeID == "" {
		return ""
	}
	if s.Logs != nil && alloc.NodeID == s.Logs.NodeID() {
		return ""
	}
	return alloc.NodeID
}

// forwardToNode proxies r to node's client over one connection from
// s.Nodes. The Host header is kept (the remote agent applies the same
// origin checks) and forwardedHeader is set. An error before anything was
// sent (no path to the node: 502) is returned for wrap to answer.
func (s *httpServer) forwardToNode(w http.ResponseWriter, r *http.Request, node string) error {
	conn, err := s.Nodes.DialNode(r.Context(), node)
	if err != nil {
		var ce *structs.CodedError
		if errors.As(err, &ce) {
			return fmt.Errorf("forwarding to node %s: %w", node, err)
		}
		return structs.NewCodedError(502, "forwarding to node %s: %v", node, err)
	}
	tr, release := oneConnTransport(conn, "node")
	defer release()
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: "node-" + node})
			pr.Out.Host = pr.In.Host
			pr.SetXForwarded()
			pr.Out.Header.Set(forwardedHeader, node)
		},
		Transport:     tr,
		FlushInterval: -1, // log streams: every write at once
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			s.Logger.Debug("forwarding a client request failed", "node_id", node, "path", r.URL.Path, "error", err)
			if r.Context().Err() != nil {
				return // the caller left
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "forwarding to node %s: %v", node, err)
		},
		ErrorLog: s.Logger.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug}),
	}
	rp.ServeHTTP(w, r)
	return nil
}

// tunnelHandler is what a client serves to the servers over its node
// tunnel: the client endpoints of h and /v1/agent/monitor only (anything
// else is 404), each
// marked forwarded so it is answered here and never sent on, and marked
// in its context as checked for its origin already (checkOrigin).
func tunnelHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/v1/client/") && r.URL.Path != "/v1/agent/monitor" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get(forwardedHeader) == "" {
			r.Header.Set(forwardedHeader, "tunnel")
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), viaTunnel{}, true)))
	})
}

// viaTunnel marks the context of a request that arrived over this client's
// node tunnel.
type viaTunnel struct{}

// checkOrigin applies the origin policy (http_origin.go) to requests from
// outside. A request that arrived over the node tunnel was checked by the
// agent it was sent to, against that agent's addresses (the ones the
// browser used), so it is not checked again against this one's; exec's
// WebSocket upgrade still compares Origin with the forwarded Host.
func (s *httpServer) checkOrigin(r *http.Request) error {
	if r.Context().Value(viaTunnel{}) != nil {
		return nil
	}
	return s.Origins.check(r)
}

// oneConnTransport is an HTTP transport whose one dial answers conn (a
// tunnel already open to a node or a server, what names it in errors);
// release closes conn if it was never used, and the transport's idle
// connection.
func oneConnTransport(conn net.Conn, what string) (*http.Transport, func()) {
	var used atomic.Bool
	tr := &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			if used.Swap(true) {
				return nil, fmt.Errorf("agent: the connection to the %s was used already", what)
			}
			return conn, nil
		},
		DisableKeepAlives: true,
	}
	return tr, func() {
		if !used.Load() {
			conn.Close()
		}
		tr.CloseIdleConnections()
	}
}
