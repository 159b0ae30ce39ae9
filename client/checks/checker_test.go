package checks

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/nomadish/nomadish/structs"
)

func targetOf(t *testing.T, addr string) Target {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	return Target{Address: host, Port: p}
}

func run(t *testing.T, c *structs.ServiceCheck, target Target, ex Execer) Result {
	t.Helper()
	ck, err := New(c, target, ex)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return ck.Check(ctx)
}

func TestHTTPCheck(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			if r.Method != http.MethodPost || r.Header.Get("X-Probe") != "yes" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			buf := make([]byte, 16)
			n, _ := r.Body.Read(buf)
			_, _ = w.Write([]byte("got " + string(buf[:n])))
		case "/busy":
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	tg := targetOf(t, srv.Listener.Addr().String())
	res := run(t, &structs.ServiceCheck{Type: "http", Path: "/ok", Method: "POST", Body: "ping",
		Header: map[string][]string{"X-Probe": {"yes"}}}, tg, nil)
	if res.Status != pass || res.StatusCode != 200 || !strings.Contains(res.Output, "got ping") {
		t.Fatalf("ok: %+v", res)
	}
	if res := run(t, &structs.ServiceCheck{Type: "http", Path: "/busy"}, tg, nil); res.Status != warn || res.StatusCode != 429 {
		t.Fatalf("429: %+v", res)
	}
	if res := run(t, &structs.ServiceCheck{Type: "http", Path: "/fail"}, tg, nil); res.Status != crit || res.StatusCode != 500 {
		t.Fatalf("500: %+v", res)
	}
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer tls.Close()
	tt := targetOf(t, tls.Listener.Addr().String())
	if res := run(t, &structs.ServiceCheck{Type: "http", Protocol: "https", Path: "/"}, tt, nil); res.Status != crit {
		t.Fatalf("an unknown certificate must fail without tls_skip_verify: %+v", res)
	}
	if res := run(t, &structs.ServiceCheck{Type: "http", Protocol: "https", Path: "/", TLSSkipVerify: true}, tt, nil); res.Status != pass {
		t.Fatalf("https with tls_skip_verify: %+v", res)
	}
}

func TestTCPCheck(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tg := targetOf(t, l.Addr().String())
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if res := run(t, &structs.ServiceCheck{Type: "tcp"}, tg, nil); res.Status != pass {
		t.Fatalf("open port: %+v", res)
	}
	l.Close()
	if res := run(t, &structs.ServiceCheck{Type: "tcp"}, tg, nil); res.Status != crit {
		t.Fatalf("closed port: %+v", res)
	}
}

func TestGRPCCheck(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	go func() { _ = srv.Serve(l) }()
	defer srv.Stop()
	hs.SetServingStatus("web", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("db", healthpb.HealthCheckResponse_NOT_SERVING)
	tg := targetOf(t, l.Addr().String())
	if res := run(t, &structs.ServiceCheck{Type: "grpc", GRPCService: "web"}, tg, nil); res.Status != pass {
		t.Fatalf("serving: %+v", res)
	}
	if res := run(t, &structs.ServiceCheck{Type: "grpc", GRPCService: "db"}, tg, nil); res.Status != crit || !strings.Contains(res.Output, "NOT_SERVING") {
		t.Fatalf("not serving: %+v", res)
	}
	if res := run(t, &structs.ServiceCheck{Type: "grpc", GRPCService: "nope"}, tg, nil); res.Status != crit {
		t.Fatalf("unknown service: %+v", res)
	}
}

// hostExec runs the command on the host: the executor's contract without a
// task (the client test runs it in a real raw_exec task).
type hostExec struct{}

func (hostExec) Exec(ctx context.Context, command []string, out *LimitedBuffer) (int, error) {
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return -1, err
	}
	return 0, nil
}

func TestScriptCheck(t *testing.T) {
	cases := []struct {
		script, want string
	}{{"echo fine", pass}, {"echo meh; exit 1", warn}, {"exit 2", crit}}
	for _, tc := range cases {
		res := run(t, &structs.ServiceCheck{Type: "script", Command: "/bin/sh", Args: []string{"-c", tc.script}}, Target{}, hostExec{})
		if res.Status != tc.want {
			t.Fatalf("%q: %+v, want %s", tc.script, res, tc.want)
		}
	}
	res := run(t, &structs.ServiceCheck{Type: "script", Command: "/bin/sh", Args: []string{"-c", "echo fine"}}, Target{}, hostExec{})
	if res.Output != "fine\n" {
		t.Fatalf("output %q", res.Output)
	}
	ck, _ := New(&structs.ServiceCheck{Type: "script", Command: "/bin/sleep", Args: []string{"30"}}, Target{}, hostExec{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if res := ck.Check(ctx); res.Status != crit || !strings.Contains(res.Output, "timed out") {
		t.Fatalf("timeout: %+v", res)
	}
	if _, err := New(&structs.ServiceCheck{Name: "x", Type: "icmp"}, Target{}, nil); err == nil {
		t.Fatal("an unknown type must be refused")
	}
}
