package agent

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/internal/connlimit"
)

// limitsServer serves h behind limitRequests and a connTracker.
func limitsServer(t *testing.T, perClient, budget int, h http.Handler) (*httptest.Server, *connTracker) {
	t.Helper()
	tr := newConnTracker(perClient, budget, 0, hclog.NewNullLogger())
	srv := httptest.NewUnstartedServer(limitRequests(h, connlimit.New(perClient), tr))
	srv.Config.ConnState, srv.Config.ConnContext = tr.ConnState, tr.ConnContext
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, tr
}

// gate is a handler for /busy that blocks until released, and answers
// anything else at once.
type gate struct {
	started chan struct{}
	release chan struct{}
}

func newGate() *gate { return &gate{started: make(chan struct{}, 16), release: make(chan struct{})} }

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/busy" {
		g.started <- struct{}{}
		<-g.release
	}
	_, _ = io.WriteString(w, "ok")
}

func dialAt(t *testing.T, srv *httptest.Server, src string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	c, err := d.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// getOn sends GET path on c and returns the status code (0 when the
// connection was closed instead).
func getOn(t *testing.T, c net.Conn, path string) int {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second)) // a broken run ends; nothing is timed
	defer c.SetDeadline(time.Time{})
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path); err != nil {
		return 0
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// closedByPeer reports whether c reads EOF (the server closed it).
func closedByPeer(t *testing.T, c net.Conn) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := c.Read(make([]byte, 1))
	return err == io.EOF || (err != nil && !strings.Contains(err.Error(), "timeout"))
}

// The limit per client IP: the third connection from one address is
// answered 429 and closed; another address is not affected.
func TestHTTPConnsPerClientLimit(t *testing.T) {
	srv, _ := limitsServer(t, 2, 0, newGate())
	dialAt(t, srv, "127.0.0.5")
	dialAt(t, srv, "127.0.0.5")
	if code := getOn(t, dialAt(t, srv, "127.0.0.5"), "/"); code != http.StatusTooManyRequests {
		t.Fatalf("third connection from one address: %d, want 429", code)
	}
	if code := getOn(t, dialAt(t, srv, "127.0.0.6"), "/"); code != http.StatusOK {
		t.Fatalf("another address: %d, want 200", code)
	}
}

// With the budget full, a new connection evicts the longest-idle one (not
// one whose handler runs), and is served; with nothing idle, it gets 503.
func TestHTTPBudgetEvictsIdleConnections(t *testing.T) {
	g := newGate()
	srv, tr := limitsServer(t, 0, 3, g)
	busy := dialAt(t, srv, "127.0.0.7")
	busyDone := make(chan int, 1)
	go func() { busyDone <- getOn(t, busy, "/busy") }()
	<-g.started
	oldest := dialAt(t, srv, "127.0.0.8")
	dialAt(t, srv, "127.0.0.9")
	if code := getOn(t, dialAt(t, srv, "127.0.0.10"), "/"); code != http.StatusOK {
		t.Fatalf("new connection with the budget full: %d, want 200", code)
	}
	if !closedByPeer(t, oldest) {
		t.Fatal("the longest-idle connection was not closed")
	}
	close(g.release)
	if code := <-busyDone; code != http.StatusOK {
		t.Fatalf("the busy connection's request: %d, want 200 (it must not be evicted)", code)
	}
	if n := tr.open(); n > 3 {
		t.Fatalf("%d connections tracked, budget 3", n)
	}
}

func TestHTTPBudgetFullOfBusyConnectionsRefuses(t *testing.T) {
	g := newGate()
	srv, _ := limitsServer(t, 0, 1, g)
	busy := dialAt(t, srv, "127.0.0.11")
	go getOn(t, busy, "/busy")
	<-g.started
	defer close(g.release)
	if code := getOn(t, dialAt(t, srv, "127.0.0.12"), "/"); code != http.StatusServiceUnavailable {
		t.Fatalf("budget full of busy connections: %d, want 503", code)
	}
}

// Blocking queries are capped per client address (429); other requests
// from it are not.
func TestHTTPBlockingQueriesPerClientCap(t *testing.T) {
	g := newGate()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("index") != "" {
			r.URL.Path = "/busy"
		}
		g.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(limitRequests(h, connlimit.New(1), nil))
	t.Cleanup(srv.Close)
	first := dialAt(t, srv, "127.0.0.13")
	done := make(chan int, 1)
	go func() { done <- getOn(t, first, "/v1/jobs?index=5") }()
	<-g.started
	if code := getOn(t, dialAt(t, srv, "127.0.0.13"), "/v1/jobs?index=5"); code != http.StatusTooManyRequests {
		t.Fatalf("second blocking query from one address: %d, want 429", code)
	}
	if code := getOn(t, dialAt(t, srv, "127.0.0.13"), "/v1/jobs"); code != http.StatusOK {
		t.Fatalf("a non-blocking query: %d, want 200", code)
	}
	close(g.release)
	if code := <-done; code != http.StatusOK {
		t.Fatalf("first blocking query: %d, want 200", code)
	}
}
