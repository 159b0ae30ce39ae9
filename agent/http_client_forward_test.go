package agent

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/server/nodeconn"
	"github.com/nomadish/nomadish/structs"
)

// dialFunc is a NodeDialer.
type dialFunc func(ctx context.Context, node string) (net.Conn, error)

func (f dialFunc) DialNode(ctx context.Context, node string) (net.Conn, error) { return f(ctx, node) }

// tcpDialer reaches every node at the test server srv, recording the
// nodes asked for.
func tcpDialer(srv *httptest.Server, asked *[]string) NodeDialer {
	return dialFunc(func(ctx context.Context, node string) (net.Conn, error) {
		*asked = append(*asked, node)
		var d net.Dialer
		return d.DialContext(ctx, "tcp", srv.Listener.Addr().String())
	})
}

// An agent forwards a request for another node's allocation to that
// node's client (body and all); the client answers from its own controls.
func TestForwardToNode(t *testing.T) {
	remote := &fakeCtl{fakeLogs: fakeLogs{nodeID: "n2", chunks: []string{"remote log\n"}}}
	back := ctlServer("n2", remote)
	tunnel := httptest.NewServer(tunnelHandler(back))
	defer tunnel.Close()
	var asked []string
	front := ctlServer("n2", &fakeCtl{fakeLogs: fakeLogs{nodeID: "n1"}})
	front.Nodes = tcpDialer(tunnel, &asked)

	path := "/v1/client/allocation/" + logsAllocID
	wantStatus(t, do(t, front, "PUT", path+"/signal", `{"Task":"t","Signal":"SIGUSR1"}`), 200, `"Index":0`)
	wantStatus(t, do(t, front, "GET", "/v1/client/fs/logs/"+logsAllocID+"?task=t&type=stdout&plain=true", ""), 200, "remote log\n")
	// The remote client's own checks answer: an unknown task is its 404.
	wantStatus(t, do(t, front, "PUT", path+"/restart", `{"TaskName":"nope"}`), 404, `unknown task "nope"`)
	if len(remote.calls) != 1 || remote.calls[0] != "signal "+logsAllocID+" t SIGUSR1" {
		t.Fatalf("remote calls %q", remote.calls)
	}
	if len(asked) != 3 || asked[0] != "n2" {
		t.Fatalf("dialed %q", asked)
	}
	// An unknown allocation is 404 here, nothing dialed.
	wantStatus(t, do(t, front, "GET", "/v1/client/allocation/00000000-0000-4000-8000-00000000dead/stats", ""), 404, "unknown allocation")
	if len(asked) != 3 {
		t.Fatalf("dialed for an unknown alloc: %q", asked)
	}
	// The tunnel serves client endpoints only.
	wantStatus(t, do(t, tunnelHandler(back), "GET", "/v1/jobs", ""), 404, "")
}

// A forwarded request is answered where it arrives, never sent on: an
// agent whose client does not run the allocation answers 501.
func TestForwardedRequestNotForwardedAgain(t *testing.T) {
	var asked []string
	back := ctlServer("n3", &fakeCtl{fakeLogs: fakeLogs{nodeID: "n2"}})
	back.Nodes = dialFunc(func(context.Context, string) (net.Conn, error) {
		asked = append(asked, "again")
		return nil, nodeconn.ErrNoPath
	})
	tunnel := httptest.NewServer(tunnelHandler(back))
	defer tunnel.Close()
	var first []string
	front := ctlServer("n3", &fakeCtl{fakeLogs: fakeLogs{nodeID: "n1"}})
	front.Nodes = tcpDialer(tunnel, &first)
	wantStatus(t, do(t, front, "GET", "/v1/client/allocation/"+logsAllocID+"/stats", ""), 501, "not on this agent's client")
	if len(first) != 1 || len(asked) != 0 {
		t.Fatalf("first hop %q, second hop %q", first, asked)
	}
}

// No server reaches the node: 502 with the reason.
func TestForwardNoPath(t *testing.T) {
	front := ctlServer("n2", &fakeCtl{fakeLogs: fakeLogs{nodeID: "n1"}})
	front.Nodes = dialFunc(func(context.Context, string) (net.Conn, error) { return nil, nodeconn.ErrNoPath })
	wantStatus(t, do(t, front, "GET", "/v1/client/allocation/"+logsAllocID+"/stats", ""), 502, "no path to node")
	if code, _ := structs.ErrorCode(nodeconn.ErrNoPath); code != 502 {
		t.Fatal(code)
	}
}

// A browser's state-changing request allowed by the agent it was sent to
// (its own origin) is not refused by the node's client, whose addresses
// differ; a foreign origin is refused by the first agent, never sent.
func TestForwardOriginCheckedOnce(t *testing.T) {
	remote := &fakeCtl{fakeLogs: fakeLogs{nodeID: "n2"}}
	back := ctlServer("n2", remote)
	back.Origins = newOriginPolicy("10.0.0.2:4646", "", nil, nil)
	tunnel := httptest.NewServer(tunnelHandler(back))
	defer tunnel.Close()
	var asked []string
	front := ctlServer("n2", &fakeCtl{fakeLogs: fakeLogs{nodeID: "n1"}})
	front.Origins = newOriginPolicy("10.0.0.1:4646", "", nil, nil)
	front.Nodes = tcpDialer(tunnel, &asked)
	path := "/v1/client/allocation/" + logsAllocID + "/signal"
	req := func(origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("PUT", path, strings.NewReader(`{"Signal":"SIGUSR1"}`))
		r.Header.Set("Origin", origin)
		rec := httptest.NewRecorder()
		front.ServeHTTP(rec, r)
		return rec
	}
	wantStatus(t, req("http://10.0.0.1:4646"), 200, "")
	wantStatus(t, req("http://evil.example"), 403, "cross-origin request refused")
	if len(remote.calls) != 1 || len(asked) != 1 {
		t.Fatalf("remote calls %q, dials %q", remote.calls, asked)
	}
	// The same request straight to the client's own API is checked there.
	r := httptest.NewRequest("PUT", path, strings.NewReader(`{"Signal":"SIGUSR1"}`))
	r.Header.Set("Origin", "http://10.0.0.1:4646")
	rec := httptest.NewRecorder()
	back.ServeHTTP(rec, r)
	wantStatus(t, rec, 403, "cross-origin request refused")
}
