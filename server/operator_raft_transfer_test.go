package server

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/server/cluster"
	"github.com/nomadish/nomadish/structs"
)

// freeLoopbackPorts reserves n loopback TCP ports and frees them for the
// caller (serf binds TCP and UDP on the same port).
func freeLoopbackPorts(t *testing.T, n int) []int {
	t.Helper()
	var out []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}

// startThreeServers starts three in-process servers that gossip over serf
// on loopback, bootstrap raft together (bootstrap_expect 3) and agree on a
// leader. They are shut down when the test ends.
func startThreeServers(t *testing.T) []*Server {
	t.Helper()
	ports := freeLoopbackPorts(t, 3)
	var servers []*Server
	for i := range 3 {
		cfg := &Config{
			NodeName: fmt.Sprintf("s%d", i+1), DataDir: t.TempDir(), RPCAddr: "127.0.0.1:0",
			BootstrapExpect: 3, NumSchedulers: 1, Logger: hclog.NewNullLogger(),
			Cluster: cluster.GossipConfig{SerfAddr: fmt.Sprintf("127.0.0.1:%d", ports[i]), ReconcileInterval: 100 * time.Millisecond},
		}
		if i > 0 {
			cfg.Cluster.RetryJoin = []string{fmt.Sprintf("127.0.0.1:%d", ports[0])}
			cfg.Cluster.RetryInterval = 100 * time.Millisecond
		}
		s, err := NewServer(cfg)
		if err != nil {
			t.Fatalf("NewServer %d: %v", i, err)
		}
		t.Cleanup(func() { s.Shutdown() })
		servers = append(servers, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := leaderOf(t, servers, nil).WaitForLeader(ctx); err != nil {
		t.Fatal(err)
	}
	return servers
}

// startJoiningServer starts one more server that joins join's serf ring
// after the bootstrap; it is shut down when the test ends.
func startJoiningServer(t *testing.T, join *Server) *Server {
	t.Helper()
	ports := freeLoopbackPorts(t, 1)
	s, err := NewServer(&Config{
		NodeName: "s4", DataDir: t.TempDir(), RPCAddr: "127.0.0.1:0", BootstrapExpect: 3, NumSchedulers: 1,
		Logger: hclog.NewNullLogger(),
		Cluster: cluster.GossipConfig{SerfAddr: fmt.Sprintf("127.0.0.1:%d", ports[0]), ReconcileInterval: 100 * time.Millisecond,
			RetryJoin: []string{join.cfg.Cluster.SerfAddr}, RetryInterval: 100 * time.Millisecond},
	})
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	t.Cleanup(func() { s.Shutdown() })
	return s
}

// leaderOf returns the server that is raft leader, waiting up to 20s for
// one other than not (nil: any) that the other servers know.
func leaderOf(t *testing.T, servers []*Server, not *Server) *Server {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, s := range servers {
			if s.IsLeader() && s != not && allKnow(servers, s.RPCAddr()) {
				return s
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no leader")
	return nil
}

func allKnow(servers []*Server, leader string) bool {
	for _, s := range servers {
		if s.Leader() != leader {
			return false
		}
	}
	return true
}

func TestRaftTransferLeadershipToAskedPeer(t *testing.T) {
	servers := startThreeServers(t)
	old := leaderOf(t, servers, nil)
	var target *Server
	for _, s := range servers {
		if s != old {
			target = s
			break
		}
	}
	// Asked through a follower, by ID: forwarded to the leader.
	var resp structs.GenericResponse
	args := structs.RaftTransferLeadershipRequest{ID: target.cluster.ServerID()}
	if err := target.RPC(structs.OperatorRaftTransferLeadershipRPC, &args, &resp); err != nil {
		t.Fatalf("transfer by id: %v", err)
	}
	if got := leaderOf(t, servers, old); got != target {
		t.Fatalf("leader is %s, want %s", got.cfg.NodeName, target.cfg.NodeName)
	}

	// By address, back to the old leader.
	args = structs.RaftTransferLeadershipRequest{Address: old.RPCAddr()}
	if err := old.RPC(structs.OperatorRaftTransferLeadershipRPC, &args, &resp); err != nil {
		t.Fatalf("transfer by address: %v", err)
	}
	if got := leaderOf(t, servers, target); got != old {
		t.Fatalf("leader is %s, want %s", got.cfg.NodeName, old.cfg.NodeName)
	}

	for _, bad := range []structs.RaftTransferLeadershipRequest{
		{ID: "no-such-server"}, {Address: "127.0.0.1:1"}, {ID: "a", Address: "b"},
	} {
		if err := old.RPC(structs.OperatorRaftTransferLeadershipRPC, &bad, &resp); errCode(err) != structs.ErrCodeBadRequest {
			t.Errorf("%+v: %v, want a 400", bad, err)
		}
	}
}
