package agent

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/agent/config"
)

// boundsAgent starts a server-only agent with server { job_max_count = max }
// and returns its HTTP base URL once it has a leader.
func boundsAgent(t *testing.T, max int) string {
	t.Helper()
	cfg := config.DefaultConfig()
	cfg.Name, cfg.BindAddr, cfg.Ports, cfg.DataDir = "bounds", "127.0.0.1", config.Ports{}, t.TempDir()
	cfg.Server.Enabled, cfg.Server.BootstrapExpect, cfg.Server.JobMaxCount = true, 1, max
	a, err := New(cfg, testLogger(t, "bounds"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Shutdown() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.server.WaitForLeader(ctx); err != nil {
		t.Fatal(err)
	}
	return "http://" + a.HTTPAddr()
}

func httpDo(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// boundsJobJSON is a job body with the given ID, count and CPU.
func boundsJobJSON(id, count, cpu string) string {
	return `{"Job":{"ID":` + id + `,"Type":"service","Datacenters":["dc1"],"TaskGroups":[{"Name":"g","Count":` + count +
		`,"Tasks":[{"Name":"t","Driver":"raw_exec","Config":{"command":"/bin/true"},"Resources":{"CPU":` + cpu + `,"MemoryMB":64}}]}]}}`
}

// TestHTTPRefusesOutOfBoundsJobs: over HTTP, count = 10000000, cpu =
// 2^63-1, a job ID with NUL, and a scale beyond job_max_count are each
// refused with a 400 naming the field or the limit, and register nothing.
func TestHTTPRefusesOutOfBoundsJobs(t *testing.T) {
	base := boundsAgent(t, 100)
	for _, c := range []struct{ name, body, want string }{
		{"count", boundsJobJSON(`"many"`, "10000000", "100"), `asks for 10000000 allocations (group "g": 10000000), over the server's job_max_count of 100`},
		{"cpu", boundsJobJSON(`"cpu"`, "1", "9223372036854775807"), `group "g": task "t": cpu 9223372036854775807 MHz is over the limit of 67108864 MHz`},
		{"nul", boundsJobJSON(`"a\u0000b"`, "1", "100"), "job ID contains a null character"},
		{"plan", boundsJobJSON(`"many"`, "101", "100"), "job_max_count of 100"},
	} {
		url := base + "/v1/jobs"
		if c.name == "plan" {
			url = base + "/v1/job/many/plan"
		}
		code, body := httpDo(t, "PUT", url, c.body)
		if code != http.StatusBadRequest || !strings.Contains(body, c.want) {
			t.Fatalf("%s: %d %s, want 400 containing %q", c.name, code, body, c.want)
		}
	}
	if code, body := httpDo(t, "GET", base+"/v1/jobs", ""); code != 200 || strings.TrimSpace(body) != "[]" {
		t.Fatalf("jobs after refused registrations: %d %s", code, body)
	}

	if code, body := httpDo(t, "PUT", base+"/v1/jobs", boundsJobJSON(`"ok"`, "100", "100")); code != 200 {
		t.Fatalf("a job at the limit: %d %s", code, body)
	}
	code, body := httpDo(t, "PUT", base+"/v1/job/ok/scale", `{"Count":101,"Target":{"Group":"g"}}`)
	if code != http.StatusBadRequest || !strings.Contains(body, "job_max_count of 100") {
		t.Fatalf("scale beyond the limit: %d %s", code, body)
	}
	if code, body := httpDo(t, "GET", base+"/v1/job/ok", ""); code != 200 || !strings.Contains(body, `"Count":100`) || !strings.Contains(body, `"Version":0`) {
		t.Fatalf("job after the refused scale: %d %.300s", code, body)
	}
}
