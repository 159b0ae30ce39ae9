package agent

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/nomadish/nomadish/internal/connlimit"
)

// Blocking query waits, as the server bounds them (server/endpoints/blocking.go).
const (
	defaultQueryWait = 5 * time.Minute
	maxQueryWait     = 10 * time.Minute
)

// limitRequests wraps the API handler with per-request bounds:
//   - while the handler runs, its connection is not idle for conns (nil
//     ok): it cannot be evicted to make room;
//   - a blocking query (?index=N, N > 0) takes one of its client IP's
//     blocking slots (limits.http_max_conns_per_client; HTTP/2 can carry
//     many on one connection) and is refused with 429 when none is free;
//   - a request body must keep arriving: httpBodyTimeout without a byte
//     fails the read (the handler answers 400);
//   - the response must be written within httpWriteTimeout after the
//     longest the request may wait (a blocking query's wait); streams (log
//     follow, snapshot download, websocket upgrades) set their own.
func limitRequests(next http.Handler, blocking *connlimit.Limiter, conns *connTracker) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := r.Context().Value(connCtxKey{}).(net.Conn); ok && conns != nil {
			conns.requestStarted(c)
			defer conns.requestDone(c)
		}
		rc := http.NewResponseController(w)
		wait, isBlocking := queryWait(r)
		if isBlocking {
			release, err := blocking.AcquireIP(connlimit.HostIP(r.RemoteAddr))
			if err != nil {
				http.Error(w, "too many concurrent blocking queries from this address (limits.http_max_conns_per_client is "+
					strconv.Itoa(blocking.Max())+")", http.StatusTooManyRequests)
				return
			}
			defer release()
		}
		if r.Body != nil && r.Body != http.NoBody {
			_ = rc.SetReadDeadline(time.Now().Add(httpBodyTimeout))
			r.Body = &progressBody{ReadCloser: r.Body, rc: rc}
		}
		if !streaming(r) {
			wait = max(wait, profileWait(r))
			_ = rc.SetWriteDeadline(time.Now().Add(wait + httpWriteTimeout))
		}
		next.ServeHTTP(w, r)
	})
}

// queryWait returns how long r may block and whether it is a blocking
// query (?index= above 0); a malformed index or wait is the handler's to
// refuse.
func queryWait(r *http.Request) (time.Duration, bool) {
	q := r.URL.Query()
	idx, err := strconv.ParseUint(q.Get("index"), 10, 64)
	if err != nil || idx == 0 {
		return 0, false
	}
	wait := defaultQueryWait
	if d, err := time.ParseDuration(q.Get("wait")); err == nil && d > 0 {
		wait = min(d, maxQueryWait)
	}
	return wait + wait/16, true // Nomad adds up to wait/16 of jitter
}

// streaming reports whether r's response is a stream with no fixed end:
// log follows, the snapshot download, the event stream, websocket
// upgrades (alloc exec).
// profileWait is how long a CPU profile or execution trace
// (/debug/pprof/profile or /trace, ?seconds=N) takes before it answers:
// its write deadline starts after that, as a blocking query's does.
func profileWait(r *http.Request) time.Duration {
	if r.URL.Path != "/debug/pprof/profile" && r.URL.Path != "/debug/pprof/trace" {
		return 0
	}
	secs, err := strconv.ParseInt(r.URL.Query().Get("seconds"), 10, 64)
	if err != nil || secs <= 0 {
		return 0
	}
	return min(time.Duration(secs)*time.Second, maxQueryWait)
}

func streaming(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/v1/client/fs/") ||
		(r.Method == http.MethodGet && r.URL.Path == "/v1/operator/snapshot") ||
		(r.Method == http.MethodGet && r.URL.Path == "/v1/event/stream") ||
		strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// progressBody extends the connection's read deadline by httpBodyTimeout
// each time a read makes progress, and clears it at the end of the body
// (so the server's background read of an idle connection, which cancels
// the request's context on error, is not cut by it).
type progressBody struct {
	io.ReadCloser
	rc *http.ResponseController
}

func (b *progressBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err != nil:
		_ = b.rc.SetReadDeadline(time.Time{})
	case n > 0:
		_ = b.rc.SetReadDeadline(time.Now().Add(httpBodyTimeout))
	}
	return n, err
}
