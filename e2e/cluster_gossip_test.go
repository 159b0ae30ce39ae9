package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestClusterGossipKeyringMembersStale runs three servers with gossip
// encryption: `server members` lists the three alive with one leader,
// `server join` reaches a peer, the keyring is rotated with `operator gossip
// keyring` (install, use, remove) on every server, and a stale read on a
// follower is answered locally with X-Nomad-KnownLeader and
// X-Nomad-LastContact.
func TestClusterGossipKeyringMembersStale(t *testing.T) {
	key := strings.TrimSpace(nomadish(t, "operator", "gossip", "keyring", "generate").out)
	servers := startSerfCluster(t, 3, "server {\n  encrypt = \""+key+"\"\n}")
	leader := agreedLeader(t, servers, 60*time.Second)

	r := nomadishAt(t, servers[0].http, "server", "members")
	if r.code != 0 || strings.Count(r.out, "alive") != 3 || strings.Count(r.out, "true") != 1 {
		t.Fatalf("server members: want 3 alive, one leader: %v", r)
	}
	if r := nomadishAt(t, servers[2].http, "server", "join", servers[0].serf); r.code != 0 || !strings.Contains(r.out, "Joined 1") {
		t.Fatalf("server join: %v", r)
	}
	r = nomadishAt(t, leader.http, "operator", "gossip", "keyring", "list")
	if r.code != 0 || !strings.Contains(r.out, key) || !strings.Contains(r.out, "3/3") {
		t.Fatalf("keyring list: %v", r)
	}
	newKey := strings.TrimSpace(nomadish(t, "operator", "gossip", "keyring", "generate").out)
	for _, op := range [][]string{{"install", newKey}, {"use", newKey}, {"remove", key}} {
		if r := nomadishAt(t, leader.http, append([]string{"operator", "gossip", "keyring"}, op...)...); r.code != 0 {
			t.Fatalf("keyring %s: %v", op[0], r)
		}
	}
	r = nomadishAt(t, servers[1].http, "operator", "gossip", "keyring", "list")
	if r.code != 0 || strings.Contains(r.out, key) || !strings.Contains(r.out, newKey) {
		t.Fatalf("keyring after rotation: %v", r)
	}
	if r := nomadishAt(t, leader.http, "operator", "gossip", "keyring", "install", "not-a-key"); r.code == 0 {
		t.Fatalf("installing a bad key succeeded: %v", r)
	}

	var follower *clusterServer
	for _, s := range servers {
		if s != leader {
			follower = s
		}
	}
	resp, err := http.Get(follower.http + "/v1/jobs?stale")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-Nomad-KnownLeader") != "true" || resp.Header.Get("X-Nomad-LastContact") == "" {
		t.Fatalf("stale read on a follower: %s %v", resp.Status, resp.Header)
	}
}
