package agent

import (
	"container/list"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/internal/connlimit"
)

// HTTP server timeouts. Long-lived requests (blocking queries up to 10 min,
// log follows, exec websockets, snapshot streams) are not bounded by a
// server-wide read or write timeout: limitRequests sets per-request
// deadlines instead (a server ReadTimeout would also cancel a blocking
// query's context once it passed).
const (
	// httpReadHeaderTimeout bounds reading a request's headers (and, over
	// TLS, the handshake, unless limits.https_handshake_timeout is shorter).
	httpReadHeaderTimeout = 10 * time.Second
	// httpIdleTimeout closes a keep-alive connection idle this long.
	httpIdleTimeout = 60 * time.Second
	// httpBodyTimeout: a request body that stops arriving for this long
	// fails the request (each read that makes progress extends it).
	httpBodyTimeout = 30 * time.Second
	// httpWriteTimeout bounds writing a response once the handler answers
	// (a blocking query's deadline adds its wait).
	httpWriteTimeout = 30 * time.Second
	// httpRefusalWrite bounds writing the 429/503 to a refused connection.
	httpRefusalWrite = 10 * time.Millisecond
)

// httpConnState is one tracked HTTP connection.
type httpConnState struct {
	release  func()        // its per-client slot
	inFlight int           // requests whose handler is running
	idle     *list.Element // in connTracker.idle while inFlight is 0, else nil
	timer    *time.Timer   // the TLS handshake deadline, nil when none or met
	evicted  bool          // closed to make room; its StateClosed is pending
}

// connTracker is the HTTP server's ConnState hook: a per-client-IP
// connection limit (limits.http_max_conns_per_client), a total budget
// derived from the process's open-file limit so HTTP can never take the
// file descriptors RPC and raft need, and, when the budget is full, the
// eviction of the longest-idle connection in favour of the new one. A
// connection is idle while no handler runs for it: new ones, keep-alive
// ones between requests, and ones still dribbling their request headers
// (so slow headers cannot pin the budget); limitRequests marks handlers.
// ConnState is called from the accept loop (StateNew) and each
// connection's goroutine; mu guards everything.
type connTracker struct {
	perIP     *connlimit.Limiter
	budget    int           // total connections; 0: unlimited
	handshake time.Duration // TLS: time to the first request byte; 0: none
	logger    hclog.Logger

	mu      sync.Mutex
	conns   map[net.Conn]*httpConnState
	idle    *list.List // of net.Conn, longest idle first
	lastLog atomic.Int64
}

func newConnTracker(maxPerClient, budget int, handshake time.Duration, logger hclog.Logger) *connTracker {
	return &connTracker{perIP: connlimit.New(maxPerClient), budget: budget, handshake: handshake,
		logger: logger, conns: map[net.Conn]*httpConnState{}, idle: list.New()}
}

// connCtxKey is the request-context key of the request's net.Conn (set by
// ConnContext).
type connCtxKey struct{}

// ConnContext is the http.Server hook that lets handlers find their
// connection.
func (t *connTracker) ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connCtxKey{}, c)
}

// ConnState is the http.Server hook.
func (t *connTracker) ConnState(c net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		t.opened(c)
	case http.StateActive:
		t.stopHandshakeTimer(c)
	case http.StateHijacked, http.StateClosed:
		t.closed(c)
	}
}

// opened admits or refuses a new connection.
func (t *connTracker) opened(c net.Conn) {
	release, err := t.perIP.Acquire(c.RemoteAddr())
	if err != nil {
		t.refuse(c, "429 Too Many Requests", "too many connections from this address (limits.http_max_conns_per_client)")
		return
	}
	t.mu.Lock()
	if t.budget > 0 && len(t.conns) >= t.budget && !t.evictLocked() {
		t.mu.Unlock()
		release()
		t.refuse(c, "503 Service Unavailable", "HTTP connection budget full and no idle connection to close")
		return
	}
	st := &httpConnState{release: release, idle: t.idle.PushBack(c)}
	if _, isTLS := c.(*tls.Conn); isTLS && t.handshake > 0 {
		st.timer = time.AfterFunc(t.handshake, func() { t.handshakeExpired(c) })
	}
	t.conns[c] = st
	t.mu.Unlock()
}

// evictLocked closes the longest-idle connection that is not yet being
// closed; false when there is none.
func (t *connTracker) evictLocked() bool {
	for e := t.idle.Front(); e != nil; e = t.idle.Front() {
		c := t.idle.Remove(e).(net.Conn)
		st := t.conns[c]
		st.idle = nil
		if st.evicted {
			continue
		}
		st.evicted = true
		// Close never waits for the peer; the connection's goroutine then
		// reports StateClosed, which frees its place.
		go c.Close()
		return true
	}
	return false
}

// requestStarted marks a handler running for c (not evictable).
func (t *connTracker) requestStarted(c net.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.conns[c]; st != nil {
		st.inFlight++
		if st.idle != nil {
			t.idle.Remove(st.idle)
			st.idle = nil
		}
	}
}

// requestDone marks a handler of c finished; with none left, c is idle
// again (the newest idle).
func (t *connTracker) requestDone(c net.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.conns[c]; st != nil {
		if st.inFlight--; st.inFlight == 0 && !st.evicted && st.idle == nil {
			st.idle = t.idle.PushBack(c)
		}
	}
}

func (t *connTracker) stopHandshakeTimer(c net.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.conns[c]; st != nil && st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
}

// closed forgets c and releases its slot.
func (t *connTracker) closed(c net.Conn) {
	t.mu.Lock()
	st := t.conns[c]
	if st == nil {
		t.mu.Unlock()
		return
	}
	delete(t.conns, c)
	if st.idle != nil {
		t.idle.Remove(st.idle)
	}
	if st.timer != nil {
		st.timer.Stop()
	}
	t.mu.Unlock()
	st.release()
}

// open returns how many connections are tracked.
func (t *connTracker) open() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.conns)
}

// handshakeExpired closes a TLS connection that has not started its first
// request within limits.https_handshake_timeout.
func (t *connTracker) handshakeExpired(c net.Conn) {
	t.mu.Lock()
	st := t.conns[c]
	expired := st != nil && st.timer != nil
	t.mu.Unlock()
	if expired {
		c.Close()
	}
}

// refuse answers a plain-HTTP connection with status (best effort, without
// blocking the accept loop) and closes it; a TLS one is just closed.
func (t *connTracker) refuse(c net.Conn, status, why string) {
	if _, isTLS := c.(*tls.Conn); !isTLS {
		_ = c.SetWriteDeadline(time.Now().Add(httpRefusalWrite))
		_, _ = c.Write([]byte("HTTP/1.1 " + status + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
	}
	c.Close()
	now := time.Now().UnixNano()
	if last := t.lastLog.Load(); now-last >= int64(time.Second) && t.lastLog.CompareAndSwap(last, now) {
		t.logger.Warn("refusing HTTP connection: "+why, "remote", c.RemoteAddr(), "per_client_limit", t.perIP.Max(), "budget", t.budget)
	}
}

// raiseNoFile raises the process's open-file soft limit to its hard limit
// and returns the soft limit in force (0 when unknown).
func raiseNoFile() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	if l.Cur < l.Max {
		want := l
		want.Cur = l.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
			l = want
		}
	}
	return l.Cur
}

// httpConnBudget is the most HTTP connections an agent keeps open: half of
// its open-file limit (the rest stays for RPC, raft, state files, driver
// plugins and tasks' logs), at least 64; 0 (unlimited) when the limit is
// unknown.
func httpConnBudget(nofile uint64) int {
	if nofile == 0 || nofile > 1<<30 {
		return 0
	}
	return max(int(nofile/2), 64)
}
