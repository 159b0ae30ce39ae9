package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// operator metrics prints /v1/metrics as it comes, passing -format and
// -pretty on; the agent's 400 is an error.
func TestOperatorMetrics(t *testing.T) {
	var queries []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/metrics", func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		switch r.URL.Query().Get("format") {
		case "prometheus":
			w.Write([]byte("# TYPE nomad_x gauge\nnomad_x 1\n"))
		case "":
			w.Write([]byte(`{"Gauges":[]}`))
		default:
			http.Error(w, "Prometheus is not enabled", http.StatusBadRequest)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	env := map[string]string{"NOMADISH_ADDR": srv.URL}
	if code, out, errOut := runCLI(env, "operator", "metrics", "-pretty"); code != 0 || out != `{"Gauges":[]}` {
		t.Fatalf("json: exit %d %q %q", code, out, errOut)
	}
	if code, out, errOut := runCLI(env, "operator", "metrics", "-format", "prometheus"); code != 0 || !strings.Contains(out, "nomad_x 1") {
		t.Fatalf("prometheus: exit %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runCLI(env, "operator", "metrics", "-format", "other"); code == 0 || !strings.Contains(errOut, "Prometheus is not enabled") {
		t.Fatalf("400: exit %d %q", code, errOut)
	}
	if len(queries) != 3 || !strings.Contains(queries[0], "pretty") || !strings.Contains(queries[1], "format=prometheus") {
		t.Fatalf("queries %q", queries)
	}
}
