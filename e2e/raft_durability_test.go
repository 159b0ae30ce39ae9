package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Three servers with small raft_snapshot_threshold / raft_trailing_logs
// take snapshots and truncate their logs while jobs are registered; then all
// three are SIGKILLed at once and restarted on their data dirs: every job
// acknowledged with a 200 is on every server (its own state, stale reads).
func TestClusterFullRestartKeepsAcknowledgedWrites(t *testing.T) {
	servers := startRaftCluster(t, 3, "raft_snapshot_threshold = 32", `raft_snapshot_interval = "100ms"`, "raft_trailing_logs = 16")
	hc := &http.Client{Timeout: 10 * time.Second}
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				id := fmt.Sprintf("dur-%d-%d", w, i)
				if code, err := putJob(hc, servers[(w+i)%3].addr, id, "1"); err == nil && code == http.StatusOK {
					mu.Lock()
					acked = append(acked, id)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(acked) < 150 {
		t.Fatalf("only %d of 200 registrations acknowledged", len(acked))
	}
	eventually(t, 30*time.Second, "a snapshot on every server", func() (bool, string) {
		for _, p := range servers {
			snaps, _ := filepath.Glob(filepath.Join(p.dir, "data", "server", "raft", "snapshots", "*", "meta.json"))
			if len(snaps) == 0 {
				return false, p.name + " has no snapshot"
			}
		}
		return true, ""
	})
	for _, p := range servers {
		p.kill()
	}
	for _, p := range servers {
		if err := p.start(p.addr[len("http://"):], p.rpcAddr); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	waitConverged(t, servers, 3, 60*time.Second)
	t.Logf("%d acknowledged jobs; all three servers SIGKILLed and restarted: leader again after %v", len(acked), time.Since(start))
	for _, p := range servers {
		eventually(t, 30*time.Second, p.name+" has every acknowledged job", func() (bool, string) {
			var jobs []struct{ ID string }
			if err := getJSON(p.addr+"/v1/jobs?stale&prefix=dur-", &jobs); err != nil {
				return false, err.Error()
			}
			have := map[string]bool{}
			for _, j := range jobs {
				have[j.ID] = true
			}
			for _, id := range acked {
				if !have[id] {
					return false, fmt.Sprintf("%d jobs, %s missing", len(jobs), id)
				}
			}
			return true, ""
		})
	}
}
