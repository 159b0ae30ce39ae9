package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// cannedAPI answers "METHOD /path" with fixed JSON values and records each
// request's query, for the commands' output and flag tests.
type cannedAPI struct {
	t       *testing.T
	mu      sync.Mutex
	answers map[string]any    // "GET /v1/jobs" -> value
	headers map[string]string // response headers of every answer
	queries map[string][]string
	bodies  map[string][]string
	srv     *httptest.Server
}

func newCannedAPI(t *testing.T, answers map[string]any) *cannedAPI {
	c := &cannedAPI{t: t, answers: answers, headers: map[string]string{},
		queries: map[string][]string{}, bodies: map[string][]string{}}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *cannedAPI) serve(w http.ResponseWriter, r *http.Request) {
	key := r.Method + " " + r.URL.Path
	var body json.RawMessage
	_ = json.NewDecoder(r.Body).Decode(&body)
	c.mu.Lock()
	c.queries[key] = append(c.queries[key], r.URL.RawQuery)
	c.bodies[key] = append(c.bodies[key], string(body))
	v, ok := c.answers[key]
	for k, hv := range c.headers {
		w.Header().Set(k, hv)
	}
	c.mu.Unlock()
	if !ok {
		http.Error(w, "not found: "+key, http.StatusNotFound)
		return
	}
	if f, ok := v.(http.HandlerFunc); ok {
		f(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		c.t.Errorf("canned: encoding %s: %v", key, err)
	}
}

// query returns the raw queries the key was asked with.
func (c *cannedAPI) query(key string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.queries[key]...)
}

func (c *cannedAPI) body(key string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.bodies[key]...)
}

func (c *cannedAPI) run(args ...string) (int, string, string) {
	return runCLI(map[string]string{"NOMADISH_ADDR": c.srv.URL}, args...)
}
