package agent

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/structs"
)

// TestHTTPNullMembersAre400: a null inside a list of a JSON body gets a 400
// naming it, and no RPC is made (the nil task group over HTTP).
func TestHTTPNullMembersAre400(t *testing.T) {
	f := registerOK(newFakeRPC())
	s := newHTTPServer(httpDeps{RPC: f})
	cases := []struct{ path, body, names string }{
		{"/v1/jobs", `{"Job": {"ID": "x", "TaskGroups": [null]}}`, "Job.TaskGroups[0] is null"},
		{"/v1/jobs", `{"Job": {"ID": "x", "TaskGroups": [{"Name": "g", "Tasks": [null]}]}}`, "Job.TaskGroups[0].Tasks[0] is null"},
		{"/v1/jobs", `{"Job": {"ID": "x", "Constraints": [null], "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec"}]}]}}`, "Job.Constraints[0] is null"},
		{"/v1/job/x/plan", `{"Job": {"ID": "x", "TaskGroups": [{"Name": "g", "Networks": [null]}]}}`, "Job.TaskGroups[0].Networks[0] is null"},
	}
	for _, c := range cases {
		wantStatus(t, do(t, s, "PUT", c.path, c.body), 400, c.names)
	}
	if n := f.numCalls(); n != 0 {
		t.Fatalf("%d RPCs made for refused bodies", n)
	}
}

// TestHTTPPanicIs500AndServerGoesOn: a handler that panics answers 500
// with a plain-text message naming the request, is logged with the route
// and stack, and the server keeps answering.
func TestHTTPPanicIs500AndServerGoesOn(t *testing.T) {
	logs := &syncBuffer{}
	f := newFakeRPC().on(structs.StatusLeaderRPC, func(_, reply any) error {
		*reply.(*string) = "127.0.0.1:4647"
		return nil
	})
	s := newHTTPServer(httpDeps{RPC: f, Logger: hclog.New(&hclog.LoggerOptions{Output: logs})})
	s.mux.HandleFunc("GET /v1/test/panic", s.wrap(func(http.ResponseWriter, *http.Request) (any, error) {
		var m map[string]int
		m["boom"]++ // a nil map write: a runtime panic, as a nil group was
		return nil, nil
	}))
	s.mux.HandleFunc("GET /v1/test/stream", s.wrap(func(w http.ResponseWriter, _ *http.Request) (any, error) {
		io.WriteString(w, "first frame")
		http.NewResponseController(w).Flush()
		panic("mid-stream")
	}))
	srv := httptest.NewServer(s)
	defer srv.Close()
	for i := 0; i < 3; i++ {
		resp, err := http.Get(srv.URL + "/v1/test/panic")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 || !strings.Contains(string(body), "internal error") || !strings.Contains(string(body), "/v1/test/panic") {
			t.Fatalf("status %d body %q", resp.StatusCode, body)
		}
		resp, err = http.Get(srv.URL + "/v1/status/leader")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("after the panic: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	// A panic after the answer began cannot become a 500: the stream is
	// broken off, so the client sees an error rather than a clean end.
	resp, err := http.Get(srv.URL + "/v1/test/stream")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "first frame" || err == nil {
		t.Fatalf("stream: status %d body %q err %v; want the frame then a read error", resp.StatusCode, body, err)
	}
	srv.Close() // waits for the handlers: every log line is written
	for _, want := range []string{"HTTP handler panicked", "route=\"GET /v1/test/panic\"", "assignment to entry in nil map", "http_decode_test.go", "mid-stream"} {
		if !strings.Contains(logs.String(), want) {
			t.Fatalf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

// syncBuffer is a log sink the handlers' goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func originServer(f *fakeRPC, allowed ...string) *httpServer {
	return newHTTPServer(httpDeps{RPC: f, Origins: newOriginPolicy("127.0.0.1:4646", "10.1.2.3:4646", []string{"node-1"}, allowed)})
}

func request(t *testing.T, h http.Handler, method, path, body string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

const okJob = `{"Job": {"ID": "x", "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec"}]}]}}`

// TestCrossOriginWritesRefused: the finding (a page on another
// origin registered a job with a text/plain POST) and its class: every
// state-changing request or WebSocket handshake whose Origin is not the
// agent's own or a listed one is refused with 403 before any RPC, and a
// JSON endpoint refuses bodies a browser may send cross-site without a
// preflight (415).
func TestCrossOriginWritesRefused(t *testing.T) {
	f := registerOK(newFakeRPC())
	s := originServer(f, "https://ui.example.com")
	refused := []struct {
		name, method, path string
		hdr                map[string]string
		code               int
		msg                string
	}{
		{"text/plain from another site", "POST", "/v1/jobs", map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403, `Origin "http://evil.example"`},
		{"JSON from another site", "PUT", "/v1/jobs", map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}, 403, "http_api_allowed_origins"},
		{"DNS rebinding: a foreign name on our port", "POST", "/v1/jobs", map[string]string{"Origin": "http://rebind.evil.example:4646"}, 403, "cross-origin"},
		{"own host, other port", "POST", "/v1/jobs", map[string]string{"Origin": "http://127.0.0.1:8080"}, 403, "cross-origin"},
		{"opaque origin", "POST", "/v1/jobs", map[string]string{"Origin": "null"}, 403, "cross-origin"},
		{"listed origin, other scheme", "POST", "/v1/jobs", map[string]string{"Origin": "http://ui.example.com"}, 403, "cross-origin"},
		{"delete from another site", "DELETE", "/v1/job/x", map[string]string{"Origin": "http://evil.example"}, 403, "cross-origin"},
		{"snapshot restore from another site", "PUT", "/v1/operator/snapshot", map[string]string{"Origin": "http://evil.example"}, 403, "cross-origin"},
		{"exec WebSocket from another site", "GET", "/v1/client/allocation/a/exec?task=t&command=%5B%22sh%22%5D", map[string]string{"Origin": "http://evil.example", "Upgrade": "websocket", "Connection": "Upgrade"}, 403, "cross-origin"},
		{"text/plain without Origin", "POST", "/v1/jobs", map[string]string{"Content-Type": "text/plain"}, 415, "unsupported Content-Type"},
		{"multipart form", "POST", "/v1/jobs", map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, 415, "application/json"},
		{"form from a browser", "POST", "/v1/jobs", map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin"}, 415, "unsupported"},
		{"unparsable type", "POST", "/v1/jobs", map[string]string{"Content-Type": "a/b/c;;"}, 415, "unsupported"},
	}
	for _, c := range refused {
		rec := request(t, s, c.method, c.path, okJob, c.hdr)
		if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.msg) {
			t.Errorf("%s: %d %q, want %d with %q", c.name, rec.Code, rec.Body.String(), c.code, c.msg)
		}
	}
	if n := f.numCalls(); n != 0 {
		t.Fatalf("%d RPCs made for refused requests", n)
	}
	allowed := []struct {
		name string
		hdr  map[string]string
	}{
		{"no Origin, no Content-Type (official Go client)", nil},
		{"JSON (the CLI)", map[string]string{"Content-Type": "application/json"}},
		{"JSON with charset", map[string]string{"Content-Type": "application/json; charset=utf-8"}},
		{"curl -d", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
		{"own bound address", map[string]string{"Origin": "http://127.0.0.1:4646"}},
		{"localhost on a loopback bind", map[string]string{"Origin": "http://LOCALHOST:4646"}},
		{"advertised address", map[string]string{"Origin": "https://10.1.2.3:4646"}},
		{"node name", map[string]string{"Origin": "http://node-1:4646"}},
		{"listed origin", map[string]string{"Origin": "https://ui.example.com", "Content-Type": "application/json"}},
		{"listed origin, explicit default port", map[string]string{"Origin": "https://ui.example.com:443"}},
	}
	for _, c := range allowed {
		if rec := request(t, s, "POST", "/v1/jobs", okJob, c.hdr); rec.Code != 200 {
			t.Errorf("%s: %d %s", c.name, rec.Code, rec.Body.String())
		}
	}
	// Reads are not state changes: a foreign Origin may read (what it sees
	// is governed by CORS headers, which the agent does not send).
	f.on(structs.StatusLeaderRPC, func(_, reply any) error { *reply.(*string) = "x"; return nil })
	if rec := request(t, s, "GET", "/v1/status/leader", "", map[string]string{"Origin": "http://evil.example"}); rec.Code != 200 {
		t.Fatalf("GET with a foreign origin: %d", rec.Code)
	}
}

func TestOriginWildcardAllowsAll(t *testing.T) {
	s := originServer(registerOK(newFakeRPC()), "*")
	if rec := request(t, s, "POST", "/v1/jobs", okJob, map[string]string{"Origin": "http://anywhere.example"}); rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
}

func TestOriginPolicyUnspecifiedBind(t *testing.T) {
	p := newOriginPolicy("0.0.0.0:4646", "", nil, nil)
	for origin, want := range map[string]bool{
		"http://127.0.0.1:4646":      true, // a local interface's IP
		"http://[::1]:4646":          isLocalIP([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}),
		"http://localhost:4646":      true,
		"http://192.0.2.1:4646":      false, // TEST-NET: not this machine
		"http://127.0.0.1:80":        false,
		"ftp://127.0.0.1:4646":       false,
		"http://127.0.0.1:4646/path": false,
	} {
		if got := p.own(origin); got != want {
			t.Errorf("own(%q) = %v, want %v", origin, got, want)
		}
	}
}
