package agent

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/agent/config"
)

// TestDebugRoutes: /debug/pprof/ serves Go's profiles only with
// enable_debug, and every one of its routes declares an ACL need.
func TestDebugRoutes(t *testing.T) {
	off := httptest.NewServer(newHTTPServer(httpDeps{RPC: newFakeRPC()}))
	defer off.Close()
	resp, err := http.Get(off.URL + "/debug/pprof/heap")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("without enable_debug: %s, want 404", resp.Status)
	}

	s := newHTTPServer(httpDeps{RPC: newFakeRPC(), EnableDebug: true, ACLEnabled: true})
	if len(s.undeclared) > 0 {
		t.Fatalf("routes without an ACL need: %v", s.undeclared)
	}
	on := httptest.NewServer(newHTTPServer(httpDeps{RPC: newFakeRPC(), EnableDebug: true}))
	defer on.Close()
	for path, want := range map[string]string{"/debug/pprof/": "heap", "/debug/pprof/heap?debug=1": "heap profile", "/debug/pprof/cmdline": ""} {
		resp, err := http.Get(on.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		_, _ = io.Copy(&b, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(b.String(), want) {
			t.Fatalf("GET %s: %s, body %.200q; want 200 with %q", path, resp.Status, b.String(), want)
		}
	}
}

// TestEnableDebugConfig: enable_debug is read from the agent's file.
func TestEnableDebugConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "agent.hcl")
	if err := os.WriteFile(p, []byte("enable_debug = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !c.EnableDebug || config.DefaultConfig().EnableDebug || !config.DefaultConfig().Merge(c).EnableDebug {
		t.Fatalf("enable_debug: loaded %v, default %v, merged %v", c.EnableDebug, config.DefaultConfig().EnableDebug, config.DefaultConfig().Merge(c).EnableDebug)
	}
}

// TestProfileWait: a CPU profile or trace of N seconds gets N seconds
// before its write deadline starts (a 60 s profile was cut at 30 s).
func TestProfileWait(t *testing.T) {
	for target, want := range map[string]time.Duration{
		"/debug/pprof/profile?seconds=60":   60 * time.Second,
		"/debug/pprof/trace?seconds=5":      5 * time.Second,
		"/debug/pprof/profile":              0,
		"/debug/pprof/profile?seconds=x":    0,
		"/debug/pprof/profile?seconds=-3":   0,
		"/debug/pprof/profile?seconds=9999": maxQueryWait,
		"/debug/pprof/heap?seconds=60":      0,
		"/v1/jobs?seconds=60":               0,
	} {
		if got := profileWait(httptest.NewRequest("GET", target, nil)); got != want {
			t.Errorf("%s: wait %s, want %s", target, got, want)
		}
	}
}
