package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

const depID = "d1d1d1d1-0000-4000-8000-000000000009"

// fakeDeployments serves the deployment endpoints from a sequence of
// versions of one deployment: ?index=N returns version N (like fakeAPI's
// evals), and records promote and fail calls.
type fakeDeployments struct {
	mu       sync.Mutex
	versions []*structs.Deployment
	promoted []string
	failed   bool
	paused   []bool
	srv      *httptest.Server
}

func newFakeDeployments(t *testing.T, versions ...*structs.Deployment) *fakeDeployments {
	f := &fakeDeployments{versions: versions}
	write := func(w http.ResponseWriter, v any, index int) {
		w.Header().Set("X-Nomad-Index", strconv.Itoa(index))
		_ = json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/deployments", func(w http.ResponseWriter, r *http.Request) {
		write(w, []*structs.Deployment{f.versions[len(f.versions)-1]}, len(f.versions))
	})
	mux.HandleFunc("GET /v1/deployment/{id}", func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.URL.Query().Get("index"))
		i = min(i, len(f.versions)-1)
		write(w, f.versions[i], i+1)
	})
	mux.HandleFunc("GET /v1/jobs", func(w http.ResponseWriter, r *http.Request) {
		write(w, []*structs.JobListStub{{ID: "example"}}, 1)
	})
	mux.HandleFunc("GET /v1/job/{id}/deployment", func(w http.ResponseWriter, r *http.Request) {
		write(w, f.versions[0], 1)
	})
	mux.HandleFunc("POST /v1/deployment/promote/{id}", func(w http.ResponseWriter, r *http.Request) {
		var body structs.DeploymentPromoteRequest
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.promoted = append(f.promoted, body.Groups...)
		if body.All {
			f.promoted = append(f.promoted, "*")
		}
		f.mu.Unlock()
		write(w, structs.DeploymentUpdateResponse{}, 1)
	})
	mux.HandleFunc("POST /v1/deployment/pause/{id}", func(w http.ResponseWriter, r *http.Request) {
		var body structs.DeploymentPauseRequest
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.paused = append(f.paused, body.Pause)
		f.mu.Unlock()
		write(w, structs.DeploymentUpdateResponse{}, 1)
	})
	mux.HandleFunc("POST /v1/deployment/fail/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.failed = true
		f.mu.Unlock()
		v := uint64(3)
		write(w, structs.DeploymentUpdateResponse{RevertedJobVersion: &v}, 1)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeDeployments) run(args ...string) (int, string, string) {
	return runCLI(map[string]string{"NOMADISH_ADDR": f.srv.URL}, args...)
}

func dep(status string, healthy int) *structs.Deployment {
	return &structs.Deployment{ID: depID, JobID: "example", JobVersion: 2, JobModifyIndex: 10, Status: status,
		StatusDescription: "desc " + status, TaskGroups: map[string]*structs.DeploymentState{
			"g": {DesiredTotal: 2, PlacedAllocs: 2, HealthyAllocs: healthy}}}
}

func TestDeploymentStatusAndList(t *testing.T) {
	f := newFakeDeployments(t, dep("running", 1))
	code, out, errOut := f.run("deployment", "status", "d1d1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"ID          = d1d1d1d1", "Status      = running", "Task Group  Desired  Placed  Healthy  Unhealthy",
		"g           2        2       1        0"} {
		if !strings.Contains(out, want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = f.run("deployment", "list")
	if code != 0 || !strings.Contains(out, "d1d1d1d1  example  2            running") {
		t.Fatalf("list exit %d:\n%s", code, out)
	}
}

func TestDeploymentPromoteAndFail(t *testing.T) {
	f := newFakeDeployments(t, dep("running", 1))
	if code, _, errOut := f.run("deployment", "promote", "-detach", "-group", "g", depID); code != 0 {
		t.Fatalf("promote: %s", errOut)
	}
	if code, _, errOut := f.run("job", "promote", "-detach", "example"); code != 0 {
		t.Fatalf("job promote: %s", errOut)
	}
	if strings.Join(f.promoted, ",") != "g,*" {
		t.Fatalf("promoted %v", f.promoted)
	}
	if code, out, _ := f.run("deployment", "pause", depID); code != 0 || !strings.Contains(out, `Deployment "d1d1d1d1" paused`) {
		t.Fatalf("pause: %d %q", code, out)
	}
	if code, out, _ := f.run("deployment", "resume", depID); code != 0 || !strings.Contains(out, "resumed") {
		t.Fatalf("resume: %d %q", code, out)
	}
	if len(f.paused) != 2 || !f.paused[0] || f.paused[1] {
		t.Fatalf("pause calls %v", f.paused)
	}
	code, out, errOut := f.run("deployment", "fail", depID)
	if code != 0 || !f.failed || !strings.Contains(out, `Deployment "d1d1d1d1" failed. Reverted job to version 3`) {
		t.Fatalf("fail exit %d %q %q", code, out, errOut)
	}
}

func TestMonitorDeployment(t *testing.T) {
	for _, tc := range []struct {
		last     string
		wantCode int
		wantLine string
	}{
		{"successful", 0, `==> Deployment "d1d1d1d1" successful`},
		{"failed", 1, `==> Deployment "d1d1d1d1" failed: desc failed`},
	} {
		f := newFakeDeployments(t, dep("running", 0), dep("running", 1), dep(tc.last, 2))
		var out strings.Builder
		m := &Meta{Out: &out, Err: &out, Getenv: func(string) string { return "" }}
		mon := &monitor{m: m, c: newAPIClient(f.srv.URL)}
		if code := mon.followDeployment("example", 10); code != tc.wantCode {
			t.Errorf("%s: exit %d, want %d\n%s", tc.last, code, tc.wantCode, out.String())
		}
		for _, want := range []string{`Deployment "d1d1d1d1" in progress: desc running`, "g           2        2       1        0", tc.wantLine} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s: output lacks %q:\n%s", tc.last, want, out.String())
			}
		}
	}
}
