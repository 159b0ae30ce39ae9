package agent

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// fakeGC is a client with controls and a garbage collector.
type fakeGC struct {
	fakeCtl
	running bool
}

var _ ClientGCer = (*fakeGC)(nil)

func (f *fakeGC) GCAlloc(_ context.Context, id string) error {
	f.calls = append(f.calls, "gc "+id)
	if f.running {
		return structs.NewCodedError(400, "allocation %s is still running", id)
	}
	return nil
}

func (f *fakeGC) GCNode(context.Context) (int, error) {
	f.calls = append(f.calls, "gc node "+f.nodeID)
	return 1, nil
}

func gcServer(nodeOfAlloc string, gc *fakeGC) *httpServer {
	s, _ := logsServer(nodeOfAlloc, nil)
	s.Logs = gc
	return s
}

// Node gc and alloc gc reach another node's client through its tunnel;
// the local client answers its own; a running alloc is its client's 400.
func TestClientGCForwarded(t *testing.T) {
	remote := &fakeGC{fakeCtl: fakeCtl{fakeLogs: fakeLogs{nodeID: "n2"}}}
	tunnel := httptest.NewServer(tunnelHandler(gcServer("n2", remote)))
	defer tunnel.Close()
	var asked []string
	local := &fakeGC{fakeCtl: fakeCtl{fakeLogs: fakeLogs{nodeID: "n1"}}}
	front := gcServer("n2", local)
	front.Nodes = tcpDialer(tunnel, &asked)

	rec := do(t, front, "GET", "/v1/client/gc?node_id=n2", "")
	wantStatus(t, rec, 200, "")
	if rec.Body.Len() != 0 {
		t.Fatalf("node gc body %q, want none (the official client decodes none)", rec.Body.String())
	}
	wantStatus(t, do(t, front, "PUT", "/v1/client/gc", ""), 200, "")
	wantStatus(t, do(t, front, "PUT", "/v1/client/gc?node_id=n1", ""), 200, "")
	wantStatus(t, do(t, front, "GET", "/v1/client/allocation/"+logsAllocID+"/gc", ""), 200, "{}")
	if len(remote.calls) != 2 || remote.calls[0] != "gc node n2" || remote.calls[1] != "gc "+logsAllocID {
		t.Fatalf("remote calls %q", remote.calls)
	}
	if len(local.calls) != 2 || local.calls[0] != "gc node n1" || local.calls[1] != "gc node n1" {
		t.Fatalf("local calls %q", local.calls)
	}
	remote.running = true
	wantStatus(t, do(t, front, "POST", "/v1/client/allocation/"+logsAllocID+"/gc", ""), 400, "still running")
	wantStatus(t, do(t, front, "PUT", "/v1/client/allocation/00000000-0000-4000-8000-00000000dead/gc", ""), 404, "unknown allocation")
	if len(asked) != 3 {
		t.Fatalf("dialed %q, want n2 three times", asked)
	}
}

// An agent without a client and no way to reach the node: 501 for its
// own node gc, 404 for another node's.
func TestClientGCWithoutClient(t *testing.T) {
	s, _ := logsServer("n2", nil)
	s.Logs = nil
	wantStatus(t, do(t, s, "PUT", "/v1/client/gc", ""), 501, "runs no client")
	wantStatus(t, do(t, s, "PUT", "/v1/client/gc?node_id=n9", ""), 404, "not reachable")
	wantStatus(t, do(t, s, "PUT", "/v1/client/allocation/"+logsAllocID+"/gc", ""), 501, "runs no client")
}
