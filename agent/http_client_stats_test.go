package agent

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// fakeHost is a client whose host stats name its node.
type fakeHost struct {
	fakeLogs
	asked int
}

func (f *fakeHost) HostStats(context.Context) (*structs.HostStats, error) {
	f.asked++
	return &structs.HostStats{Memory: &structs.HostMemoryStats{Total: 100, Used: 40},
		CPU: []*structs.HostCPUStats{{CPU: "cpu0", Total: 25}}, CPUTicksConsumed: 500,
		AllocDirStats: &structs.HostDiskStats{Mountpoint: "/alloc-" + f.nodeID, Size: 10}}, nil
}

// GET /v1/client/stats answers the local client's host stats, and another
// node's through its tunnel; without a client it is 501, and 404 for a
// node this agent cannot reach.
func TestClientStats(t *testing.T) {
	remote := &fakeHost{fakeLogs: fakeLogs{nodeID: "n2"}}
	back, _ := logsServer("n2", nil)
	back.Logs = remote
	tunnel := httptest.NewServer(tunnelHandler(back))
	defer tunnel.Close()
	var asked []string
	local := &fakeHost{fakeLogs: fakeLogs{nodeID: "n1"}}
	front, _ := logsServer("n2", nil)
	front.Logs = local
	front.Nodes = tcpDialer(tunnel, &asked)

	for _, c := range []struct{ path, mount string }{
		{"/v1/client/stats", "/alloc-n1"}, {"/v1/client/stats?node_id=n1", "/alloc-n1"}, {"/v1/client/stats?node_id=n2", "/alloc-n2"},
	} {
		rec := do(t, front, "GET", c.path, "")
		wantStatus(t, rec, 200, "")
		var hs structs.HostStats
		if err := json.Unmarshal(rec.Body.Bytes(), &hs); err != nil {
			t.Fatalf("%s: %v: %s", c.path, err, rec.Body)
		}
		if hs.AllocDirStats == nil || hs.AllocDirStats.Mountpoint != c.mount || hs.CPUTicksConsumed != 500 || hs.Memory.Used != 40 || len(hs.CPU) != 1 {
			t.Fatalf("%s answered %s", c.path, rec.Body)
		}
	}
	if local.asked != 2 || remote.asked != 1 || len(asked) != 1 || asked[0] != "n2" {
		t.Fatalf("local asked %d, remote %d, dialed %q", local.asked, remote.asked, asked)
	}

	s, _ := logsServer("n2", nil)
	s.Logs = nil
	wantStatus(t, do(t, s, "GET", "/v1/client/stats", ""), 501, "runs no client")
	wantStatus(t, do(t, s, "GET", "/v1/client/stats?node_id=n9", ""), 404, "not reachable")
}
