package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/testbin"
)

// A real single server agent (on-disk raft): `operator raft list-peers`
// shows it as the leader; `operator snapshot save`, more jobs, `operator
// snapshot restore`: the jobs registered after the save are gone, the ones
// before are there, and writes go on.
func TestOperatorSnapshotRoundTrip(t *testing.T) {
	ports, err := testbin.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	dir := agentsDir(t)
	httpAddr, rpcAddr := fmt.Sprintf("127.0.0.1:%d", ports[0]), fmt.Sprintf("127.0.0.1:%d", ports[1])
	cfg := serverAgentConfig(dir, "snap1", "127.0.0.1", ports[0], ports[1], ports[2], 1, nil)
	p, err := startServerAgent(dir, "snap1", httpAddr, rpcAddr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	waitLeader(t, p.addr, 30*time.Second)

	r := nomadishAt(t, p.addr, "operator", "raft", "list-peers")
	if r.code != 0 || !strings.Contains(r.out, "snap1") || !strings.Contains(r.out, rpcAddr) || !strings.Contains(r.out, "leader") {
		t.Fatalf("list-peers: %s", r)
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	for _, id := range []string{"before-1", "before-2"} {
		if code, err := putJob(hc, p.addr, id, "1"); err != nil || code != 200 {
			t.Fatalf("register %s: %d %v", id, code, err)
		}
	}
	snap := filepath.Join(t.TempDir(), "backup.snap")
	if r := nomadishAt(t, p.addr, "operator", "snapshot", "save", snap); r.code != 0 {
		t.Fatalf("snapshot save: %s", r)
	}
	for _, id := range []string{"after-1", "after-2"} {
		if code, err := putJob(hc, p.addr, id, "1"); err != nil || code != 200 {
			t.Fatalf("register %s: %d %v", id, code, err)
		}
	}
	if r := nomadishAt(t, p.addr, "operator", "snapshot", "restore", snap); r.code != 0 || !strings.Contains(r.out, "Snapshot Restored") {
		t.Fatalf("snapshot restore: %s", r)
	}
	for id, want := range map[string]bool{"before-1": true, "before-2": true, "after-1": false, "after-2": false} {
		var job map[string]any
		err := getJSON(p.addr+"/v1/job/"+id, &job)
		if (err == nil) != want {
			t.Errorf("job %s present=%v after the restore, want %v (%v)", id, err == nil, want, err)
		}
	}
	if code, err := putJob(hc, p.addr, "after-restore", "1"); err != nil || code != 200 {
		t.Fatalf("write after the restore: %d %v", code, err)
	}
	if r := nomadishAt(t, p.addr, "operator", "raft", "remove-peer", "-peer-id=nope"); r.code != 1 || !strings.Contains(r.errOut, "404") {
		t.Fatalf("remove unknown peer: %s", r)
	}
}

// Three servers: list-peers through a follower shows all three with one
// leader; a snapshot saved and restored through followers (forwarded to the
// leader) reaches every server: each one's own state (stale reads) loses
// the job registered after the save and keeps the one before.
func TestClusterOperatorRaftAndSnapshot(t *testing.T) {
	servers := startRaftCluster(t, 3)
	leader := waitConverged(t, servers, 3, 30*time.Second)
	var follower *serverProc
	for _, p := range servers {
		if p.rpcAddr != leader {
			follower = p
		}
	}
	r := nomadishAt(t, follower.addr, "operator", "raft", "list-peers")
	if r.code != 0 || strings.Count(r.out, "leader") != 1 || strings.Count(r.out, "follower") != 2 {
		t.Fatalf("list-peers: %s", r)
	}
	for _, p := range servers {
		if !strings.Contains(r.out, p.name+".") || !strings.Contains(r.out, p.rpcAddr) {
			t.Fatalf("list-peers lacks %s (%s): %s", p.name, p.rpcAddr, r)
		}
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	if code, err := putJob(hc, follower.addr, "keep", "1"); err != nil || code != 200 {
		t.Fatalf("register: %d %v", code, err)
	}
	snap := filepath.Join(t.TempDir(), "cluster.snap")
	if r := nomadishAt(t, follower.addr, "operator", "snapshot", "save", snap); r.code != 0 {
		t.Fatalf("save: %s", r)
	}
	if code, err := putJob(hc, follower.addr, "extra", "1"); err != nil || code != 200 {
		t.Fatalf("register: %d %v", code, err)
	}
	if r := nomadishAt(t, follower.addr, "operator", "snapshot", "restore", snap); r.code != 0 {
		t.Fatalf("restore: %s", r)
	}
	for _, p := range servers {
		eventually(t, 20*time.Second, p.name+" has the snapshot's state", func() (bool, string) {
			var job map[string]any
			extra := getJSON(p.addr+"/v1/job/extra?stale", &job) == nil
			keep := getJSON(p.addr+"/v1/job/keep?stale", &job) == nil
			return keep && !extra, fmt.Sprintf("keep %v extra %v", keep, extra)
		})
	}
	if code, err := putJob(hc, follower.addr, "after", "1"); err != nil || code != 200 {
		t.Fatalf("write after restore: %d %v", code, err)
	}
}
