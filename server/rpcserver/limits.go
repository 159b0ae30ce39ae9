package rpcserver

import (
	"net"
	"sync/atomic"
	"time"

	"github.com/nomadish/nomadish/internal/connlimit"
)

// Limits bounds connections on the RPC port (the agent's limits block,
// rpc_* keys). The zero value sets no bound.
type Limits struct {
	// HandshakeTimeout bounds the wait for a connection's protocol byte
	// (with TLS, for the inner one too; the TLS handshake has its own
	// bound); a connection that has not started talking by then is closed.
	HandshakeTimeout time.Duration
	// MaxConnsPerClient caps concurrent connections (RPC, multiplexed and
	// raft alike) per client IP; more are closed at accept. It is the RPC
	// port's own budget: HTTP connections do not count against it.
	MaxConnsPerClient int
}

// rpcRefusalLogEvery is the least time between two "refused" warnings (a
// flood must not flood the log too).
const rpcRefusalLogEvery = time.Second

// rpcAdmission is the accept loop's per-client accounting (serveListener's
// goroutine owns it; releases come from any goroutine).
type rpcAdmission struct {
	perIP   *connlimit.Limiter
	lastLog atomic.Int64 // unix nanos of the last refusal warning
}

func newRPCAdmission(l Limits) *rpcAdmission {
	return &rpcAdmission{perIP: connlimit.New(l.MaxConnsPerClient)}
}

// admit takes a per-client slot for conn. It returns the connection to
// serve, which releases the slot when closed, or false (conn closed) when
// its IP already holds MaxConnsPerClient connections. (The handshake
// timeout is readProto's read deadline.)
func (s *Server) admit(a *rpcAdmission, conn net.Conn) (net.Conn, bool) {
	release, err := a.perIP.Acquire(conn.RemoteAddr())
	if err != nil {
		conn.Close()
		now := time.Now().UnixNano() // log rate limit: wall time, nothing stamped
		if last := a.lastLog.Load(); now-last >= int64(rpcRefusalLogEvery) && a.lastLog.CompareAndSwap(last, now) {
			s.logger.Warn("refusing RPC connection: too many from this address (limits.rpc_max_conns_per_client)",
				"remote", conn.RemoteAddr(), "limit", a.perIP.Max())
		}
		return nil, false
	}
	return connlimit.Wrap(conn, release), true
}
