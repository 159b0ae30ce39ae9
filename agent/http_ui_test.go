package agent

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/agent/config"
)

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// TestUIRoutes: with ui.enabled, / redirects to /ui/ (307) and page paths
// serve the app, with ACLs on and no token (the files are public); without
// it both are 404.
func TestUIRoutes(t *testing.T) {
	s := newHTTPServer(httpDeps{RPC: newFakeRPC(), UIEnabled: true, ACLEnabled: true})
	if len(s.undeclared) > 0 {
		t.Fatalf("routes without an ACL need: %v", s.undeclared)
	}
	on := httptest.NewServer(s)
	defer on.Close()
	c := &http.Client{CheckRedirect: noRedirect}
	resp, err := c.Get(on.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != "/ui/" {
		t.Fatalf("GET /: %s Location %q, want 307 to /ui/", resp.Status, resp.Header.Get("Location"))
	}
	for path, want := range map[string]string{"/ui/jobs": `src="/ui/assets/app.js"`, "/ui/jobs/web": "<!doctype html>", "/ui/assets/jobs.js": "export function jobsPage"} {
		resp, err := c.Get(on.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), want) {
			t.Fatalf("GET %s: %s, body %.100q; want 200 with %q", path, resp.Status, b, want)
		}
	}
	if resp, err := c.Get(on.URL + "/ui/assets/missing.js"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET a missing asset: %v %v, want 404", resp, err)
	}

	off := httptest.NewServer(newHTTPServer(httpDeps{RPC: newFakeRPC()}))
	defer off.Close()
	for _, path := range []string{"/", "/ui/", "/ui/jobs"} {
		resp, err := c.Get(off.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("ui disabled: GET %s: %s, want 404", path, resp.Status)
		}
	}
}

// TestUIConfig: ui.enabled is on by default, read from the agent's file,
// and a file's explicit false wins in the merge.
func TestUIConfig(t *testing.T) {
	if !config.DefaultConfig().UI.Enabled || !config.DevConfig().UI.Enabled {
		t.Fatal("the UI is off by default")
	}
	p := filepath.Join(t.TempDir(), "agent.hcl")
	if err := os.WriteFile(p, []byte("ui {\n  enabled = false\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if m := config.DefaultConfig().Merge(c); m.UI.Enabled {
		t.Fatal("ui { enabled = false } did not turn the UI off")
	}
	if err := os.WriteFile(p, []byte("ui {\n  enabeld = true\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := config.LoadFile(p); err == nil || !strings.Contains(err.Error(), "enabeld") {
		t.Fatalf("a misspelt ui key: %v, want an error naming it", err)
	}
}
