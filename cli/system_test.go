package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestSystemCommands: `system gc` and `system reconcile summaries` PUT
// their paths with the token; a refusal is exit 1 with the API's error;
// arguments are refused before any request.
func TestSystemCommands(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Nomad-Token"))
		mu.Unlock()
		if r.Header.Get("X-Nomad-Token") == "" {
			http.Error(w, "Permission denied", http.StatusForbidden)
		}
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{"NOMADISH_ADDR": srv.URL}

	if code, out, errOut := runCLI(env, "system", "gc", "-token", "root"); code != 0 || out != "" {
		t.Fatalf("system gc: exit %d, %q %q", code, out, errOut)
	}
	if code, out, _ := runCLI(env, "system", "reconcile", "summaries", "-token", "root"); code != 0 || !strings.Contains(out, "Successfully reconciled job summaries") {
		t.Fatalf("system reconcile summaries: exit %d, %q", code, out)
	}
	if code, _, errOut := runCLI(env, "system", "gc"); code != 1 || !strings.Contains(errOut, "Permission denied") {
		t.Fatalf("refused gc: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCLI(env, "system", "gc", "extra"); code != 1 {
		t.Fatalf("system gc with an argument: exit %d", code)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"PUT /v1/system/gc root", "PUT /v1/system/reconcile/summaries root", "PUT /v1/system/gc "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("requests %q, want %q", got, want)
	}
}
