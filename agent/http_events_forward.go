package agent

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

// A client-only agent knows the servers' RPC addresses only, and the event
// stream lives on the servers. It forwards GET /v1/event/stream over the RPC
// port: a connection that announces rpcclient.RPCServerHTTP speaks HTTP to
// the server agent's API, restricted to the stream (serverHTTPConns), and
// the request is reverse-proxied over it, token and all, so the server
// applies its ACLs.

// ServerDialer opens a connection to a server's HTTP routes for a
// client-only agent (RPCServerHTTP).
type ServerDialer interface {
	DialServerHTTP(ctx context.Context) (net.Conn, error)
}

// serversHTTPDialer dials the servers of a client-only agent in turn.
type serversHTTPDialer struct {
	servers func() []string
	tls     *tls.Config
}

// DialServerHTTP returns a connection to the first server that answers.
func (d *serversHTTPDialer) DialServerHTTP(ctx context.Context) (net.Conn, error) {
	err := client.ErrNoServers
	for _, addr := range d.servers() {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var conn net.Conn
		if conn, err = rpcclient.Dial(addr, rpcclient.RPCServerHTTP, d.tls, rpcclient.DialTimeout); err == nil {
			return conn, nil
		}
	}
	return nil, fmt.Errorf("dialing a server for the event stream: %w", err)
}

// serverHTTPConns returns what a server agent serves on RPCServerHTTP
// connections: h's GET /v1/event/stream only (anything else is 404), as
// checked for its origin already (the forwarding agent did). Each call
// serves its one connection until it closes.
func serverHTTPConns(h http.Handler, logger hclog.Logger) func(net.Conn) {
	only := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/event/stream" {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), viaTunnel{}, true)))
	})
	errLog := logger.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug})
	return func(conn net.Conn) {
		l := &oneConnListener{conn: conn, done: make(chan struct{})}
		srv := &http.Server{Handler: only, ReadHeaderTimeout: httpReadHeaderTimeout, ErrorLog: errLog,
			ConnState: func(_ net.Conn, st http.ConnState) {
				if st == http.StateClosed || st == http.StateHijacked {
					l.Close()
				}
			}}
		srv.SetKeepAlivesEnabled(false)
		_ = srv.Serve(l) // returns once the connection closed
	}
}

// oneConnListener hands out one connection, then waits until closed.
type oneConnListener struct {
	mu   sync.Mutex
	conn net.Conn // nil once handed out
	done chan struct{}
	once sync.Once
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		return c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConnListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *oneConnListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "rpc" }
func (pipeAddr) String() string  { return "rpc-server-http" }

// forwardEvents proxies the stream request to a server. An error before
// anything was sent (no server reachable: 502) is returned for wrap.
func (s *httpServer) forwardEvents(w http.ResponseWriter, r *http.Request) error {
	conn, err := s.Servers.DialServerHTTP(r.Context())
	if err != nil {
		return structs.NewCodedError(http.StatusBadGateway, "%v", err)
	}
	tr, release := oneConnTransport(conn, "server")
	defer release()
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: "server"})
			pr.Out.Host = pr.In.Host
			pr.SetXForwarded()
		},
		Transport:     tr,
		FlushInterval: -1, // every frame at once
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the caller left
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "forwarding the event stream to a server: %v", err)
		},
		ErrorLog: s.Logger.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug}),
	}
	rp.ServeHTTP(w, r)
	return nil
}
