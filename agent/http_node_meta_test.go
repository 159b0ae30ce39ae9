package agent

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/structs"
)

// fakeMetaClient is a client with dynamic node metadata (NodeMetaClient).
type fakeMetaClient struct {
	fakeLogs
	mu      sync.Mutex
	dynamic map[string]*string
}

func (f *fakeMetaClient) NodeMeta() (*structs.NodeMetaResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	meta := map[string]string{"node": f.nodeID}
	for k, v := range f.dynamic {
		if v != nil {
			meta[k] = *v
		}
	}
	return &structs.NodeMetaResponse{Meta: meta, Dynamic: f.dynamic, Static: map[string]string{"node": f.nodeID}}, nil
}

func (f *fakeMetaClient) ApplyNodeMeta(u map[string]*string) (*structs.NodeMetaResponse, error) {
	f.mu.Lock()
	if f.dynamic == nil {
		f.dynamic = map[string]*string{}
	}
	for k, v := range u {
		f.dynamic[k] = v
	}
	f.mu.Unlock()
	return f.NodeMeta()
}

// Node metadata of this agent's client is answered here; another node's
// goes over the node tunnel, body included; monitor's node_id too.
func TestNodeMetaAndMonitorForwardedToNode(t *testing.T) {
	remote := &fakeMetaClient{fakeLogs: fakeLogs{nodeID: "n2"}}
	remoteLog := hclog.NewInterceptLogger(&hclog.LoggerOptions{Level: hclog.Error, Output: &strings.Builder{}})
	back := newHTTPServer(httpDeps{RPC: newFakeRPC(), Logs: remote, LogSinks: remoteLog})
	tunnel := httptest.NewServer(tunnelHandler(back))
	defer tunnel.Close()
	local := &fakeMetaClient{fakeLogs: fakeLogs{nodeID: "n1"}}
	var asked []string
	front := newHTTPServer(httpDeps{RPC: newFakeRPC(), Logs: local, Nodes: tcpDialer(tunnel, &asked)})

	wantStatus(t, do(t, front, "POST", "/v1/client/metadata", `{"Meta":{"gpu":"a100","zone":null}}`), 200, `"gpu":"a100"`)
	wantStatus(t, do(t, front, "GET", "/v1/client/metadata", ""), 200, `"zone":null`)
	wantStatus(t, do(t, front, "POST", "/v1/client/metadata", `{"NodeID":"n2","Meta":{"rack":"r9"}}`), 200, `"node":"n2"`)
	wantStatus(t, do(t, front, "GET", "/v1/client/metadata?node_id=n2", ""), 200, `"rack":"r9"`)
	if local.dynamic["rack"] != nil || remote.dynamic["rack"] == nil || remote.dynamic["gpu"] != nil {
		t.Fatalf("local %v, remote %v", local.dynamic, remote.dynamic)
	}
	if len(asked) != 2 || asked[0] != "n2" {
		t.Fatalf("dialed %q", asked)
	}
	wantStatus(t, do(t, front, "POST", "/v1/client/metadata", `{"Meta":{"gpu":5}}`), 400, "string or null")
	wantStatus(t, do(t, front, "POST", "/v1/client/metadata", `{"Meta":{}}`), 400, "Meta is required")

	ts := httptest.NewServer(front)
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v1/agent/monitor?node_id=n2&plain=true&log_level=debug", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("monitor through the tunnel: %d", resp.StatusCode)
	}
	remoteLog.Debug("from the remote agent")
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, "from the remote agent") {
		t.Fatalf("line %q %v", line, err)
	}
}

// An agent with no client needs node_id, and cannot reach nodes without a
// dialer.
func TestNodeMetaWithoutClient(t *testing.T) {
	s := newHTTPServer(httpDeps{RPC: newFakeRPC()})
	wantStatus(t, do(t, s, "GET", "/v1/client/metadata", ""), 400, "node_id is required")
	wantStatus(t, do(t, s, "GET", "/v1/client/metadata?node_id=n2", ""), 404, "not reachable")
}
