package rpcserver

import (
	"crypto/tls"
	"net"
	"net/rpc"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/internal/gopool"
	"github.com/nomadish/nomadish/internal/tlsutil"
	"github.com/nomadish/nomadish/rpcclient"
)

// Leadership is what forwarding needs to know of raft: whether this server
// leads, and the leader's RPC address ("" when unknown).
type Leadership interface {
	IsLeader() bool
	Leader() string
}

// RaftHandoff takes the connections that start with the RPCRaft byte
// (cluster.StreamLayer); raft's transport owns them from then on.
type RaftHandoff interface {
	Handoff(net.Conn)
}

// NodeTunnels serves the node-tunnel bytes (nodeconn.Registry): a client's
// tunnel (RPCNodeTunnel) and another server's dial through it
// (RPCNodeDial). Each call owns conn until it returns.
type NodeTunnels interface {
	ServeTunnel(net.Conn)
	ServeDial(net.Conn)
}

// Config is what the server's wiring gives the transport.
type Config struct {
	// Listener is the RPC port (nil: in-process RPC only). The Server
	// accepts on it once Serve is called and closes it in StopAccepting.
	Listener net.Listener
	// Advertise is this server's RPC address as its peers know it: a
	// leader at this address is this server (not forwarded to).
	Advertise string
	// Leadership tells whether this server leads, and where the leader is.
	Leadership Leadership
	// HoldTimeout is how long a request waits for a leader before failing
	// with structs.ErrNoLeader (Nomad's rpc_hold_timeout).
	HoldTimeout time.Duration
	// Raft takes RPCRaft connections (nil: they are closed).
	Raft RaftHandoff
	// NodeTunnels takes the node tunnel and node dial connections.
	NodeTunnels NodeTunnels
	// ServeHTTP, when set, takes the RPCServerHTTP connections (the
	// server's HTTP routes for client-only agents); it owns conn.
	ServeHTTP func(conn net.Conn)
	// TLS is the RPC port's mutual TLS (nil: plaintext): Incoming for the
	// listener, Outgoing for forwarding to other servers.
	TLS *tlsutil.RPC
	// Limits bounds connections on the RPC port.
	Limits Limits
	// Logger is the server's logger.
	Logger hclog.Logger
	// Shutdown is closed when the server shuts down: requests waiting for
	// a leader fail at once and the accept loop ends.
	Shutdown <-chan struct{}
}

// Server is the RPC transport of one nomadish server: the listener and its
// connections, the wire protocols (msgpack net/rpc, yamux, TLS, the raft
// and node-tunnel bytes), per-request byte budgets, per-client connection
// limits, the method table and its one dispatch point (localRPC), and
// forwarding to the leader. Build it with New, Register the endpoints,
// then Serve.
type Server struct {
	cfg    Config
	logger hclog.Logger

	rpcServer *rpc.Server
	methods   map[string]rpcMethod // written by Register before Serve; read-only after

	// peers calls other servers: forwarding here, bootstrap queries in
	// server/cluster (Peers).
	peers *rpcclient.Pool

	connsMu sync.Mutex
	conns   map[net.Conn]struct{} // guarded by connsMu; nil after Close

	// restoreReading is held while an Operator.SnapshotRestore request's
	// body is read from the RPC port (serve_codec.go): one at a time, a
	// second gets ErrSnapshotRestoreInProgress.
	restoreReading atomic.Bool

	wg sync.WaitGroup // the accept loop

	// calls runs each RPC request of the port's conversations
	// (serve_codec.go) on a reused goroutine; closed by Close.
	calls *gopool.Pool
}

// New builds the transport; it serves nothing until Serve.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	var out *tls.Config
	if cfg.TLS != nil {
		out = cfg.TLS.Outgoing
	}
	return &Server{
		cfg: cfg, logger: cfg.Logger,
		rpcServer: rpc.NewServer(), methods: map[string]rpcMethod{},
		peers: rpcclient.NewPool(out, cfg.Logger.Named("forward")),
		conns: map[net.Conn]struct{}{},
		calls: gopool.New(30 * time.Second),
	}
}

// Peers calls other servers over the RPC port (one multiplexed session per
// server, TLS when the port uses it); coded errors come back rebuilt. Safe
// for concurrent use; closed by StopAccepting.
func (s *Server) Peers() *rpcclient.Pool { return s.peers }

// Serve accepts RPC, raft and node-tunnel connections on the listener (if
// any) until StopAccepting. Call it once, after Register, when raft's
// layer has its reader.
func (s *Server) Serve() {
	if s.cfg.Listener == nil {
		return
	}
	s.wg.Add(1)
	go s.serveListener()
}

// Addr returns the address the listener is bound to ("" without one).
func (s *Server) Addr() string {
	if s.cfg.Listener == nil {
		return ""
	}
	return s.cfg.Listener.Addr().String()
}

// StopAccepting closes the peer connections and the listener: no new
// connection is accepted and forwarding fails. Open connections stay until
// Close.
func (s *Server) StopAccepting() {
	s.peers.Close()
	if s.cfg.Listener != nil {
		s.cfg.Listener.Close()
	}
}

// Close waits for the accept loop (ended by StopAccepting and the closed
// Shutdown channel) and closes every open connection.
func (s *Server) Close() {
	s.wg.Wait()
	s.closeConns()
	s.calls.Close()
}
