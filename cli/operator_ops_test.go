package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingAPI answers every request with handler and records each
// "METHOD path?query".
type recordingAPI struct {
	mu   sync.Mutex
	seen []string
}

func (r *recordingAPI) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

func newRecordingAPI(t *testing.T, handler http.HandlerFunc) (*recordingAPI, map[string]string) {
	rec := &recordingAPI{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, r.Method+" "+r.URL.RequestURI())
		rec.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, map[string]string{"NOMADISH_ADDR": srv.URL}
}

func TestOperatorRaftTransferLeadership(t *testing.T) {
	rec, env := newRecordingAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("id") == "nope" {
			http.Error(w, `no voting raft peer with id "nope"`, http.StatusBadRequest)
		}
	})
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"-peer-id=abc"}, "Transferred leadership to peer with id \"abc\"\n"},
		{[]string{"-peer-address=10.0.0.2:4647"}, "Transferred leadership to peer with address \"10.0.0.2:4647\"\n"},
		{nil, "Transferred leadership to a peer raft chooses\n"},
	} {
		code, out, errOut := runCLI(env, append([]string{"operator", "raft", "transfer-leadership"}, tc.args...)...)
		if code != 0 || out != tc.out {
			t.Errorf("%v: exit %d, out %q, stderr %q", tc.args, code, out, errOut)
		}
	}
	want := []string{"PUT /v1/operator/raft/transfer-leadership?id=abc",
		"PUT /v1/operator/raft/transfer-leadership?address=10.0.0.2%3A4647",
		"PUT /v1/operator/raft/transfer-leadership"}
	if got := rec.calls(); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("calls %q, want %q", got, want)
	}
	if code, _, errOut := runCLI(env, "operator", "raft", "transfer-leadership", "-peer-id=nope"); code != 1 || errOut == "" {
		t.Fatalf("unknown peer: exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := runCLI(env, "operator", "raft", "transfer-leadership", "-peer-id=a", "-peer-address=b"); code != 1 {
		t.Fatalf("both flags: exit %d", code)
	}
}

func TestOperatorAutopilotCommands(t *testing.T) {
	var mu sync.Mutex
	stored := autopilotConfig{CleanupDeadServers: true, LastContactThreshold: "200ms", MaxTrailingLogs: 250,
		ServerStabilizationTime: "10s", ModifyIndex: 5}
	healthy := true
	rec, env := newRecordingAPI(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.Method + " " + r.URL.Path {
		case "GET /v1/operator/autopilot/configuration":
			json.NewEncoder(w).Encode(stored)
		case "PUT /v1/operator/autopilot/configuration":
			var in autopilotConfig
			json.NewDecoder(r.Body).Decode(&in)
			ok := r.URL.Query().Get("cas") == "5"
			if ok {
				stored = in
				stored.ModifyIndex = 6
			}
			json.NewEncoder(w).Encode(ok)
		case "GET /v1/operator/autopilot/health":
			h := operatorHealth{Healthy: healthy, FailureTolerance: 1, Leader: "id-1", Voters: []string{"id-1"},
				Servers: []serverHealth{{ID: "id-1", Name: "s1", Address: "10.0.0.1:4647", SerfStatus: "alive", Version: "0.1.0", Leader: true,
					Voter: true, Healthy: healthy, LastContact: "0s", LastTerm: 2, LastIndex: 40,
					StableSince: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}}
			if !healthy {
				w.WriteHeader(http.StatusTooManyRequests)
			}
			json.NewEncoder(w).Encode(h)
		}
	})
	code, out, errOut := runCLI(env, "operator", "autopilot", "get-config")
	want := "CleanupDeadServers = true\nLastContactThreshold = 200ms\nMaxTrailingLogs = 250\nMinQuorum = 0\n" +
		"ServerStabilizationTime = 10s\nEnableRedundancyZones = false\nDisableUpgradeMigration = false\nEnableCustomUpgrades = false\n"
	if code != 0 || out != want {
		t.Fatalf("get-config: exit %d, stderr %q, out:\n%s", code, errOut, out)
	}
	code, out, errOut = runCLI(env, "operator", "autopilot", "set-config", "-cleanup-dead-servers=false", "-min-quorum=3",
		"-server-stabilization-time=30s")
	if code != 0 || out != "Configuration updated!\n" {
		t.Fatalf("set-config: exit %d, out %q, stderr %q", code, out, errOut)
	}
	mu.Lock()
	got := stored
	mu.Unlock()
	if got.CleanupDeadServers || got.MinQuorum != 3 || got.ServerStabilizationTime != "30s" || got.LastContactThreshold != "200ms" || got.MaxTrailingLogs != 250 {
		t.Fatalf("stored %+v", got)
	}
	if c := rec.calls(); c[len(c)-1] != "PUT /v1/operator/autopilot/configuration?cas=5" {
		t.Fatalf("calls %q", c)
	}
	// The fake takes only cas=5: the next write, at 6, loses.
	if code, _, errOut := runCLI(env, "operator", "autopilot", "set-config", "-min-quorum=1"); code != 1 || !strings.Contains(errOut, "concurrently") {
		t.Fatalf("lost cas: exit %d %q", code, errOut)
	}

	code, out, _ = runCLI(env, "operator", "autopilot", "health")
	want = "Healthy: true\nFailureTolerance: 1\nLeader: id-1\nVoters:\n   id-1\nServers:\n" +
		"ID    Name  Address        SerfStatus  Version  Leader  Voter  Healthy  LastContact  LastTerm  LastIndex  StableSince\n" +
		"id-1  s1    10.0.0.1:4647  alive       0.1.0    true    true   true     0s           2         40         2026-01-02 03:04:05 +0000 UTC\n"
	if code != 0 || out != want {
		t.Fatalf("health: exit %d, out:\n%s", code, out)
	}
	code, out, _ = runCLI(env, "operator", "autopilot", "health", "-json")
	var h operatorHealth
	if code != 0 || json.Unmarshal([]byte(out), &h) != nil || len(h.Servers) != 1 || h.Servers[0].LastIndex != 40 {
		t.Fatalf("health -json: exit %d, out %s", code, out)
	}
	mu.Lock()
	healthy = false
	mu.Unlock()
	if code, out, _ := runCLI(env, "operator", "autopilot", "health"); code != 2 || !strings.Contains(out, "Healthy: false") {
		t.Fatalf("unhealthy: exit %d, out:\n%s", code, out)
	}
}
