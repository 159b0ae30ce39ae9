package nodeconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/yamux"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

// ErrCodeNoPath is the code of ErrNoPath: no server holds a tunnel of the
// node (HTTP 502: the servers are the gateway to the node and cannot reach
// it; Nomad answers 500 "Unknown node" / "no path to node").
const ErrCodeNoPath = 502

// Sentinel errors.
var (
	// ErrNoPath: the node's client holds no tunnel to any server (it is
	// down, not connected yet, or an older client).
	ErrNoPath = structs.NewCodedError(ErrCodeNoPath, "no path to node: its client is not connected to any server")
	// ErrClosed: the registry was closed (the server is shutting down).
	ErrClosed = errors.New("nodeconn: registry closed")
)

// Authenticator checks that secret is node nodeID's SecretID: nil, or a
// coded error (structs.ErrNodeNotFound 404, ErrNodeSecretMismatch 403).
type Authenticator func(nodeID, secret string) error

// PeerDialer opens a forwarded node dial (rpcclient.DialNode with
// forwarded set) to nodeID through the server at addr.
type PeerDialer func(ctx context.Context, addr, nodeID string) (net.Conn, error)

// Config is what a Registry needs from its server.
type Config struct {
	// Auth checks a tunnel's credentials against the server's state.
	Auth Authenticator
	// Peers returns the RPC addresses of the other servers (not this one).
	Peers func() []string
	// DialPeer asks another server for a node (nil: never ask).
	DialPeer PeerDialer
	Logger   hclog.Logger
}

// Registry holds the node tunnels of one server. Safe for concurrent use.
type Registry struct {
	cfg    Config
	logger hclog.Logger

	mu       sync.Mutex
	sessions map[string]*tunnel // guarded by mu: node ID -> its newest tunnel
	closed   bool               // guarded by mu
}

// New returns an empty registry.
func New(cfg Config) *Registry {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.Peers == nil {
		cfg.Peers = func() []string { return nil }
	}
	return &Registry{cfg: cfg, logger: cfg.Logger.Named("nodeconn"), sessions: map[string]*tunnel{}}
}

// ServeTunnel serves an RPCNodeTunnel connection (its protocol byte read):
// it reads the TunnelHello, checks it with Auth, answers, and keeps the
// yamux session as the node's tunnel (replacing an older one) until the
// connection ends. It returns then; conn is closed.
func (r *Registry) ServeTunnel(conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(rpcclient.HandshakeTimeout))
	var hello rpcclient.TunnelHello
	if err := rpcclient.ReadFrame(conn, &hello); err != nil {
		r.logger.Debug("bad tunnel handshake", "remote", conn.RemoteAddr(), "error", err)
		return
	}
	err := r.cfg.Auth(hello.NodeID, hello.SecretID)
	if err != nil {
		r.logger.Warn("refused a node tunnel", "node_id", hello.NodeID, "remote", conn.RemoteAddr(), "error", err)
		_ = rpcclient.WriteFrame(conn, rpcclient.ReplyFor(err))
		return
	}
	// The session and its registry entry exist before the node reads the
	// acceptance (so it is dialable once the node knows it is); no stream
	// is opened on it until the acceptance is written (t.ready).
	sess, err := yamux.Server(conn, rpcclient.YamuxConfig(r.logger))
	if err != nil {
		return
	}
	t := &tunnel{sess: sess, ready: make(chan struct{})}
	if !r.add(hello.NodeID, t) {
		sess.Close()
		return
	}
	err = rpcclient.WriteFrame(conn, rpcclient.HandshakeReply{})
	conn.SetDeadline(time.Time{})
	close(t.ready)
	if err != nil {
		sess.Close()
	}
	r.logger.Debug("node tunnel up", "node_id", hello.NodeID, "remote", conn.RemoteAddr())
	<-sess.CloseChan()
	r.remove(hello.NodeID, t)
	r.logger.Debug("node tunnel down", "node_id", hello.NodeID)
}

// tunnel is one node's session; ready is closed once the node was sent
// its acceptance (streams may be opened from then on).
type tunnel struct {
	sess  *yamux.Session
	ready chan struct{}
}

// add makes t node's tunnel, closing the one it replaces; false once the
// registry is closed.
func (r *Registry) add(node string, t *tunnel) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	if old := r.sessions[node]; old != nil {
		old.sess.Close()
	}
	r.sessions[node] = t
	return true
}

// remove forgets t if it is still node's tunnel.
func (r *Registry) remove(node string, t *tunnel) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sessions[node] == t {
		delete(r.sessions, node)
	}
}

// Connected reports whether this server holds a tunnel of node.
func (r *Registry) Connected(node string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[node] != nil
}

// DialLocal opens a stream on the tunnel this server holds for node:
// ErrNoPath when it holds none.
func (r *Registry) DialLocal(node string) (net.Conn, error) {
	r.mu.Lock()
	t, closed := r.sessions[node], r.closed
	r.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if t == nil {
		return nil, ErrNoPath
	}
	select {
	case <-t.ready:
	case <-t.sess.CloseChan():
	}
	stream, err := t.sess.OpenStream()
	if err != nil {
		r.remove(node, t)
		return nil, fmt.Errorf("%w (the tunnel broke: %v)", ErrNoPath, err)
	}
	return stream, nil
}

// Dial returns a connection to node's client-only HTTP API: over this
// server's tunnel, else through the first other server that holds one.
// ErrNoPath when none does.
func (r *Registry) Dial(ctx context.Context, node string) (net.Conn, error) {
	conn, err := r.DialLocal(node)
	if err == nil || !errors.Is(err, ErrNoPath) || r.cfg.DialPeer == nil {
		return conn, err
	}
	for _, addr := range r.cfg.Peers() {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c, perr := r.cfg.DialPeer(ctx, addr, node)
		if perr == nil {
			return c, nil
		}
		r.logger.Debug("peer has no path to the node", "peer", addr, "node_id", node, "error", perr)
	}
	return nil, ErrNoPath
}

// Close closes every tunnel; later dials fail with ErrClosed and later
// tunnels are refused.
func (r *Registry) Close() {
	r.mu.Lock()
	sessions := r.sessions
	r.sessions, r.closed = map[string]*tunnel{}, true
	r.mu.Unlock()
	for _, t := range sessions {
		t.sess.Close()
	}
}
