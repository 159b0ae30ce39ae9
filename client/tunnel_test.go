package client_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/client/clienttest"
)

// chanListener is a net.Listener fed with connections by the test; Close
// makes Accept fail (the tunnel broke).
type chanListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newChanListener() *chanListener {
	return &chanListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error   { l.once.Do(func() { close(l.closed) }); return nil }
func (l *chanListener) Addr() net.Addr { return &net.TCPAddr{} }

// The tunnel dials with the node's credentials, moves on to the next
// server when a dial fails, serves the handler on the connections the
// server opens, and dials again when the tunnel breaks.
func TestTunnelDialsServesReconnects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		c := newClient(t, srv, &fakeLauncher{drv: clienttest.NewFakeDriver()}, t.TempDir())
		defer c.Shutdown()
		var mu sync.Mutex
		var dials []string
		lns := make(chan *chanListener, 4)
		c.StartTunnel(client.TunnelConfig{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi "+r.URL.Path) }),
			Servers: func() []string { return []string{"s1", "s2"} },
			Dial: func(addr, node, secret string) (net.Listener, error) {
				mu.Lock()
				dials = append(dials, addr)
				mu.Unlock()
				if node != c.NodeID() || secret == "" {
					t.Errorf("dialed as %q with secret %q", node, secret)
				}
				if addr == "s1" {
					return nil, errors.New("connection refused")
				}
				l := newChanListener()
				lns <- l
				return l, nil
			},
		})
		l := <-lns
		if got := getThrough(t, l); got != "hi /v1/client/x" {
			t.Fatalf("through the tunnel: %q", got)
		}
		l.Close() // the server went away
		l = <-lns
		if got := getThrough(t, l); got != "hi /v1/client/x" {
			t.Fatalf("through the new tunnel: %q", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []string{"s1", "s2", "s1", "s2"}; !slices.Equal(dials, want) {
			t.Fatalf("dials %q, want %q", dials, want)
		}
	})
}

// getThrough opens one connection on l (as the server opens a stream) and
// sends a GET on it.
func getThrough(t *testing.T, l *chanListener) string {
	t.Helper()
	cli, srv := net.Pipe()
	defer cli.Close()
	l.conns <- srv
	req, _ := http.NewRequest("GET", "http://node/v1/client/x", nil)
	if err := req.Write(cli); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(cli), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
