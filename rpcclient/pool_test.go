package rpcclient

import (
	"errors"
	"io"
	"net"
	"net/rpc"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/yamux"

	"github.com/nomadish/nomadish/structs"
)

// testEndpoint is the "Test" service of muxServer.
type testEndpoint struct{ release chan struct{} }

func (e *testEndpoint) Echo(args *string, reply *string) error { *reply = *args; return nil }

// Block waits until release is closed (a long poll).
func (e *testEndpoint) Block(args *string, reply *string) error {
	<-e.release
	*reply = "released"
	return nil
}

func (e *testEndpoint) Missing(args *string, reply *string) error {
	return structs.NewCodedError(structs.ErrCodeNotFound, "no such thing")
}

// muxServer is a minimal server of the RPCMultiplex protocol counting the
// TCP connections it accepted.
type muxServer struct {
	ln    net.Listener
	ep    *testEndpoint
	rpc   *rpc.Server
	conns atomic.Int64
	mu    sync.Mutex
	open  []net.Conn
}

func startMux(t testing.TB, addr string) *muxServer {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	m := &muxServer{ln: ln, ep: &testEndpoint{release: make(chan struct{})}, rpc: rpc.NewServer()}
	if err := m.rpc.RegisterName("Test", m.ep); err != nil {
		t.Fatal(err)
	}
	go m.serve()
	t.Cleanup(m.stop)
	return m
}

func (m *muxServer) serve() {
	for {
		c, err := m.ln.Accept()
		if err != nil {
			return
		}
		m.conns.Add(1)
		m.mu.Lock()
		m.open = append(m.open, c)
		m.mu.Unlock()
		go func() {
			var b [1]byte
			if _, err := io.ReadFull(c, b[:]); err != nil || b[0] != RPCMultiplex {
				if b[0] == RPCNomad { // the legacy protocol, for the benchmark
					m.rpc.ServeCodec(NewCodec(c))
				}
				c.Close()
				return
			}
			sess, err := yamux.Server(c, YamuxConfig(hclog.NewNullLogger()))
			if err != nil {
				return
			}
			for {
				st, err := sess.AcceptStream()
				if err != nil {
					return
				}
				go m.rpc.ServeCodec(NewCodec(st))
			}
		}()
	}
}

// stop closes the listener and every connection (a server going away).
func (m *muxServer) stop() {
	m.ln.Close()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.open {
		c.Close()
	}
	m.open = nil
	select {
	case <-m.ep.release:
	default:
		close(m.ep.release)
	}
}

func TestPoolConcurrentCallsShareOneSession(t *testing.T) {
	m := startMux(t, "127.0.0.1:0")
	p := NewPool(nil, nil)
	defer p.Close()
	const n = 50
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			in, out := "hello", ""
			err := p.RPC(m.ln.Addr().String(), "Test.Echo", &in, &out)
			if err == nil && out != in {
				err = errors.New("wrong reply " + out)
			}
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := m.conns.Load(); got != 1 {
		t.Fatalf("%d TCP connections for %d concurrent calls, want 1", got, n)
	}
}

func TestPoolLongPollDoesNotBlockOtherCalls(t *testing.T) {
	m := startMux(t, "127.0.0.1:0")
	p := NewPool(nil, nil)
	defer p.Close()
	addr := m.ln.Addr().String()
	blocked := make(chan error, 1)
	go func() {
		in, out := "", ""
		blocked <- p.RPC(addr, "Test.Block", &in, &out)
	}()
	// While Block holds its stream, short calls complete.
	for i := 0; i < 5; i++ {
		in, out := "x", ""
		if err := p.RPC(addr, "Test.Echo", &in, &out); err != nil || out != "x" {
			t.Fatalf("short call during a long poll: %q %v", out, err)
		}
	}
	select {
	case err := <-blocked:
		t.Fatalf("the long poll returned early: %v", err)
	default:
	}
	close(m.ep.release)
	select {
	case err := <-blocked:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll never returned")
	}
	if got := m.conns.Load(); got != 1 {
		t.Fatalf("%d TCP connections, want 1", got)
	}
}

func TestPoolCodedErrors(t *testing.T) {
	m := startMux(t, "127.0.0.1:0")
	p := NewPool(nil, nil)
	defer p.Close()
	in, out := "", ""
	err := p.RPC(m.ln.Addr().String(), "Test.Missing", &in, &out)
	if code, msg := structs.ErrorCode(err); code != structs.ErrCodeNotFound || msg != "no such thing" {
		t.Fatalf("want a rebuilt 404, got %v", err)
	}
	if isConnErr(err) {
		t.Fatal("an endpoint error counted as a connection error")
	}
}

func TestPoolRedialsAfterServerRestart(t *testing.T) {
	m := startMux(t, "127.0.0.1:0")
	addr := m.ln.Addr().String()
	p := NewPool(nil, nil)
	defer p.Close()
	in, out := "a", ""
	if err := p.RPC(addr, "Test.Echo", &in, &out); err != nil {
		t.Fatal(err)
	}
	m.stop()
	// The broken session is noticed (by the call or by yamux's reader) and
	// dropped; a call to the dead address fails as a connection error.
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := p.RPC(addr, "Test.Echo", &in, &out)
		if err != nil {
			if !isConnErr(err) {
				t.Fatalf("call to a stopped server: %v is not a connection error", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("calls still succeed after the server stopped")
		}
	}
	m2 := startMux(t, addr)
	in = "b"
	if err := p.RPC(addr, "Test.Echo", &in, &out); err != nil || out != "b" {
		t.Fatalf("after the restart: %q %v", out, err)
	}
	if got := m2.conns.Load(); got != 1 {
		t.Fatalf("restarted server saw %d connections, want 1", got)
	}
}

func TestPoolClosed(t *testing.T) {
	p := NewPool(nil, nil)
	p.Close()
	in, out := "", ""
	if err := p.RPC("127.0.0.1:1", "Test.Echo", &in, &out); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed pool: %v", err)
	}
}

// BenchmarkPoolEcho measures one small call over the pool (a yamux stream
// per call), serial and with parallel callers.
func BenchmarkPoolEcho(b *testing.B) {
	m := startMux(b, "127.0.0.1:0")
	p := NewPool(nil, nil)
	defer p.Close()
	addr := m.ln.Addr().String()
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			in, out := "x", ""
			if err := p.RPC(addr, "Test.Echo", &in, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				in, out := "x", ""
				if err := p.RPC(addr, "Test.Echo", &in, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkLegacyEcho is the same call over one net/rpc connection
// (RPCNomad), the protocol before the pool, for comparison.
func BenchmarkLegacyEcho(b *testing.B) {
	m := startMux(b, "127.0.0.1:0")
	conn, err := Dial(m.ln.Addr().String(), RPCNomad, nil, DialTimeout)
	if err != nil {
		b.Fatal(err)
	}
	c := rpc.NewClientWithCodec(NewCodec(conn))
	defer c.Close()
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			in, out := "x", ""
			if err := c.Call("Test.Echo", &in, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				in, out := "x", ""
				if err := c.Call("Test.Echo", &in, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}
