package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// ctlAPI serves the alloc control endpoints on top of fakeAPI (which
// records every request and body) and returns the address to use.
func ctlAPI(t *testing.T, f *fakeAPI) string {
	mux := http.NewServeMux()
	ok := func(w http.ResponseWriter, r *http.Request) { f.json(w, structs.GenericResponse{}) }
	mux.HandleFunc("PUT /v1/client/allocation/{id}/signal", ok)
	mux.HandleFunc("PUT /v1/client/allocation/{id}/restart", ok)
	mux.HandleFunc("PUT /v1/allocation/{id}/stop", func(w http.ResponseWriter, r *http.Request) {
		f.json(w, structs.AllocStopResponse{EvalID: evalID, Index: 9})
	})
	mux.HandleFunc("GET /v1/client/allocation/{id}/stats", func(w http.ResponseWriter, r *http.Request) {
		f.json(w, structs.SumAllocUsage(map[string]*structs.TaskResourceUsage{"t": {Timestamp: 1,
			ResourceUsage: &structs.ResourceUsage{MemoryStats: &structs.MemoryStats{RSS: 4 << 20},
				CpuStats: &structs.CpuStats{Percent: 12.5, TotalTicks: 12}}}}))
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern != "" {
			f.srv.Config.Handler.ServeHTTP(httptest.NewRecorder(), r.Clone(r.Context())) // record it
			mux.ServeHTTP(w, r)
			return
		}
		f.srv.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestAllocSignalRestartStopCommands(t *testing.T) {
	f := newFakeAPI(t)
	allocFixture(f, "t")
	env := map[string]string{"NOMADISH_ADDR": ctlAPI(t, f)}
	for _, tc := range []struct {
		args     []string
		request  string
		body     string
		stdout   string
		exitCode int
	}{
		{[]string{"alloc", "signal", "-s", "SIGUSR1", "a1a1", "t"}, "PUT /v1/client/allocation/" + allocID + "/signal",
			`{"Task":"t","Signal":"SIGUSR1"}`, "", 0},
		{[]string{"alloc", "signal", "a1a1"}, "PUT /v1/client/allocation/" + allocID + "/signal",
			`{"Task":"","Signal":"SIGKILL"}`, "", 0},
		{[]string{"alloc", "restart", "-task", "t", "a1a1"}, "PUT /v1/client/allocation/" + allocID + "/restart",
			`{"TaskName":"t","AllTasks":false}`, "", 0},
		{[]string{"alloc", "restart", "-all-tasks", allocID}, "PUT /v1/client/allocation/" + allocID + "/restart",
			`{"TaskName":"","AllTasks":true}`, "", 0},
		{[]string{"alloc", "stop", "-detach", "a1a1"}, "PUT /v1/allocation/" + allocID + "/stop", "", evalID + "\n", 0},
	} {
		before := len(f.requests)
		code, out, errb := runCLI(env, tc.args...)
		if code != tc.exitCode || out != tc.stdout {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out, errb)
		}
		f.mu.Lock()
		got, body := f.requests[len(f.requests)-1], strings.TrimSpace(f.bodies[len(f.bodies)-1])
		f.mu.Unlock()
		if len(f.requests) == before || got != tc.request || body != tc.body {
			t.Fatalf("%v: last request %q body %q, want %q %q", tc.args, got, body, tc.request, tc.body)
		}
	}
	code, _, errb := runCLI(env, "alloc", "restart", "-all-tasks", "a1a1", "t")
	if code != 1 || !strings.Contains(errb, "not both") {
		t.Fatalf("restart with a task and -all-tasks: %d %q", code, errb)
	}
}

func TestAllocStatusStats(t *testing.T) {
	f := newFakeAPI(t)
	a := allocFixture(f, "t")
	a.ClientStatus = structs.AllocClientStatusRunning
	env := map[string]string{"NOMADISH_ADDR": ctlAPI(t, f)}
	code, out, errb := runCLI(env, "alloc", "status", "-stats", "a1a1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"12/100 MHz", "4.0 MiB/32 MiB", "Memory Stats:", "CPU Stats:", "12.50%"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Without -stats nothing is fetched.
	_, out, _ = runCLI(env, "alloc", "status", "a1a1")
	if strings.Contains(out, "MHz") && !strings.Contains(out, "100 MHz") || strings.Contains(out, "12/100") {
		t.Fatalf("usage shown without -stats:\n%s", out)
	}
}
