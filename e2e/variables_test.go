package e2e

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// grepDir returns the files under dir whose bytes contain needle.
func grepDir(t *testing.T, dir string, needle []byte) []string {
	t.Helper()
	var hits []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, needle) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

// waitVar waits until the variable at path has item = want at addr:
// through `var get` (the leader answers), or with stale through
// GET /v1/var/:path?stale (the server at addr answers from its own state
// and keyring).
func waitVar(t *testing.T, addr, path, item, want string, timeout time.Duration, stale bool) {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("%s: %s.%s = %q", addr, path, item, want), func() (bool, string) {
		if stale {
			var v struct{ Items map[string]string }
			err := getJSON(addr+"/v1/var/"+path+"?stale", &v)
			return err == nil && v.Items[item] == want, fmt.Sprintf("%+v %v", v, err)
		}
		r := nomadishAt(t, addr, "var", "get", "-item", item, path)
		return r.code == 0 && strings.TrimSpace(r.out) == want, r.String()
	})
}

// TestVariablesSurviveRestartAndLeaderKill: three non-dev servers; a
// variable written through the leader is readable on every server (each
// follower fetched the root key from a peer into its own keystore), stays
// readable after the leader is SIGKILLed and after the killed server
// restarts, and no server's data dir (raft log, snapshots, state) holds
// its plaintext; a rotation on the new leader leaves old variables
// readable.
func TestVariablesSurviveRestartAndLeaderKill(t *testing.T) {
	servers := startSerfCluster(t, 3)
	leader := agreedLeader(t, servers, 60*time.Second)
	const secret = "s3cr3t-plaintext-4711"
	eventually(t, 30*time.Second, "a variable written (the root key exists)", func() (bool, string) {
		r := nomadishAt(t, leader.http, "var", "put", "nomad/jobs/web", "password="+secret, "user=app")
		return r.code == 0, r.String()
	})
	for _, s := range servers {
		eventually(t, 30*time.Second, s.name+" replicated the root key", func() (bool, string) {
			keys, _ := filepath.Glob(filepath.Join(s.dir, "data", "server", "keystore", "*.nks.json"))
			return len(keys) == 1, fmt.Sprint(keys)
		})
		fi, err := os.Stat(mustGlob(t, filepath.Join(s.dir, "data", "server", "keystore", "*.nks.json")))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s key file: %v %v", s.name, fi, err)
		}
		waitVar(t, s.http, "nomad/jobs/web", "password", secret, 15*time.Second, true)
	}
	leader.kill()
	var survivors []*clusterServer
	for _, s := range servers {
		if s != leader {
			survivors = append(survivors, s)
		}
	}
	next := agreedLeader(t, survivors, 60*time.Second)
	for _, s := range survivors {
		waitVar(t, s.http, "nomad/jobs/web", "password", secret, 30*time.Second, false)
	}
	if r := nomadishAt(t, next.http, "operator", "root", "keyring", "rotate"); r.code != 0 {
		t.Fatalf("rotate on the new leader: %v", r)
	}
	if r := nomadishAt(t, next.http, "var", "put", "app/after", "k=rotated"); r.code != 0 {
		t.Fatalf("put after rotate: %v", r)
	}
	leader.start(t)
	for _, s := range servers {
		waitVar(t, s.http, "nomad/jobs/web", "user", "app", 60*time.Second, true)
		waitVar(t, s.http, "app/after", "k", "rotated", 60*time.Second, true)
	}
	for _, s := range servers {
		dataDir := filepath.Join(s.dir, "data")
		if hits := grepDir(t, dataDir, []byte(secret)); len(hits) > 0 {
			t.Fatalf("%s: the plaintext is on disk in %v", s.name, hits)
		}
		if hits := grepDir(t, dataDir, []byte("nomad/jobs/web")); len(hits) == 0 {
			t.Fatalf("%s: the variable's path is nowhere in the data dir: the grep looks in the wrong place", s.name)
		}
	}
}

func mustGlob(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(pattern)
	if len(m) == 0 {
		t.Fatalf("nothing matches %s", pattern)
	}
	return m[0]
}

// TestVariablesSurviveSingleServerRestart: a lone non-dev server SIGKILLed
// and restarted has no peer to fetch its root key from: it reads it back
// from its keystore, and its variables decrypt.
func TestVariablesSurviveSingleServerRestart(t *testing.T) {
	servers := startSerfCluster(t, 1)
	s := agreedLeader(t, servers, 30*time.Second)
	eventually(t, 30*time.Second, "a variable written", func() (bool, string) {
		r := nomadishAt(t, s.http, "var", "put", "app/db", "password=restart-secret-99")
		return r.code == 0, r.String()
	})
	s.kill()
	s.start(t)
	agreedLeader(t, servers, 30*time.Second)
	waitVar(t, s.http, "app/db", "password", "restart-secret-99", 30*time.Second, false)
	if hits := grepDir(t, filepath.Join(s.dir, "data"), []byte("restart-secret-99")); len(hits) > 0 {
		t.Fatalf("the plaintext is on disk in %v", hits)
	}
}
