package ui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/internal/depstest"
)

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// Page paths, deep links included, answer index.html so the app routes in
// the browser; assets answer with their own type.
func TestHandler(t *testing.T) {
	h := Handler()
	for _, p := range []string{"/ui/", "/ui/jobs", "/ui/jobs/web", "/ui/jobs/web%2Fapi?namespace=prod", "/ui/clients/abc/", "/ui/settings/tokens"} {
		resp, body := get(t, h, "GET", p, nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(body, `src="/ui/assets/app.js"`) {
			t.Fatalf("GET %s: %d %s, body %.80q; want index.html", p, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Fatalf("GET %s: headers %v", p, resp.Header)
		}
	}
	for p, ctype := range map[string]string{
		"/ui/assets/app.js":      "text/javascript; charset=utf-8",
		"/ui/assets/jobs.js":     "text/javascript; charset=utf-8",
		"/ui/assets/app.css":     "text/css; charset=utf-8",
		"/ui/assets/favicon.svg": "image/svg+xml",
		"/ui/assets/index.html":  "text/html; charset=utf-8",
	} {
		resp, body := get(t, h, "GET", p, nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctype || body == "" {
			t.Fatalf("GET %s: %d %q; want 200 %q", p, resp.StatusCode, resp.Header.Get("Content-Type"), ctype)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("ETag") == "" {
			t.Fatalf("GET %s: headers %v", p, resp.Header)
		}
		// The ETag revalidates: a second GET with it is a 304.
		resp, _ = get(t, h, "GET", p, map[string]string{"If-None-Match": resp.Header.Get("ETag")})
		if resp.StatusCode != http.StatusNotModified {
			t.Fatalf("GET %s with its ETag: %d, want 304", p, resp.StatusCode)
		}
	}
}

// A missing asset is a 404, not index.html; ".." never leaves the tree.
func TestHandlerMissingAndEscape(t *testing.T) {
	h := Handler()
	for _, p := range []string{"/ui/assets/nope.js", "/ui/assets/", "/ui/assets", "/ui/assets/sub/app.js", "/ui/assets/./nope.css"} {
		resp, body := get(t, h, "GET", p, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("GET %s: %d, body %.80q; want 404", p, resp.StatusCode, body)
		}
	}
	// Climbing out of /ui/ lands on a page path at most: index.html, never a file.
	for _, p := range []string{"/ui/../ui.go", "/ui/..%2fui.go", "/ui/jobs/../../../etc/passwd",
		"/ui/assets/../../ui.go", "/ui/assets/%2e%2e/ui.go", "/ui/assets/sub/../../go.mod", "/ui/assets/..%2f..%2fui_test.go"} {
		resp, body := get(t, h, "GET", p, nil)
		if resp.StatusCode != 200 || !strings.Contains(body, "<!doctype html>") || strings.Contains(body, "package ui") {
			t.Fatalf("GET %s: %d, body %.80q; want index.html", p, resp.StatusCode, body)
		}
	}
	if resp, _ := get(t, h, "GET", "/other", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /other: %d, want 404", resp.StatusCode)
	}
	if resp, _ := get(t, h, "POST", "/ui/jobs", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST /ui/jobs: %d, want 405", resp.StatusCode)
	}
	if resp, body := get(t, h, "HEAD", "/ui/assets/app.js", nil); resp.StatusCode != 200 || body != "" {
		t.Fatalf("HEAD: %d %q", resp.StatusCode, body)
	}
}

// Every module the pages import is an embedded asset.
func TestModulesResolve(t *testing.T) {
	files, err := load()
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range files {
		if !strings.HasSuffix(name, ".js") {
			continue
		}
		for _, line := range strings.Split(string(f.body), "\n") {
			_, from, ok := strings.Cut(line, ` from "./`)
			if !ok {
				continue
			}
			dep := strings.TrimSuffix(strings.TrimSpace(from), `";`)
			if files[dep] == nil {
				t.Errorf("%s imports ./%s, which is not an asset", name, dep)
			}
		}
	}
}

func TestUIImportsStdlibOnly(t *testing.T) {
	depstest.OnlyImports(t, ".")
}
