package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A real single server agent (on-disk raft): `operator raft list-peers`
// shows it as the leader; `operator snapshot save`, more jobs, `operator
// snapshot restore`: the jobs registered after the save are gone, the ones
// before are there, and writes go on.
func TestOperatorSnapshotRoundTrip(t *testing.T) {
	ports, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
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
