package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// versionsFake adds the versions, revert and scale endpoints in front of the
// shared fake (which records every request and serves the rest).
func versionsFake(t *testing.T, f *fakeAPI, versions []*structs.Job) string {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/job/{id}/versions", func(w http.ResponseWriter, r *http.Request) {
		resp := structs.JobVersionsResponse{Versions: versions}
		if r.URL.Query().Get("diffs") == "true" {
			for i := 0; i+1 < len(versions); i++ {
				resp.Diffs = append(resp.Diffs, versions[i+1].Diff(versions[i]))
			}
		}
		f.json(w, resp)
	})
	reply := func(w http.ResponseWriter, r *http.Request) {
		f.json(w, structs.JobRegisterResponse{EvalID: evalID})
	}
	mux.HandleFunc("PUT /v1/job/{id}/revert", reply)
	mux.HandleFunc("PUT /v1/job/{id}/scale", reply)
	record := f.srv.Config.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern != "" {
			// Record it through the shared fake (it answers 404 itself,
			// which this response replaces).
			record.ServeHTTP(httptest.NewRecorder(), r.Clone(r.Context()))
			mux.ServeHTTP(w, r)
			return
		}
		record.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func versionedJobs() []*structs.Job {
	v0 := &structs.Job{ID: "example", Name: "example", Type: "service", SubmitTime: fixedNow.UnixNano(),
		TaskGroups: []*structs.TaskGroup{{Name: "g", Count: 1, Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec",
			Config: map[string]any{"command": "/bin/sleep"}}}}}}
	v1 := v0.Copy()
	v1.Version, v1.Stable = 1, true
	v1.TaskGroups[0].Count = 3
	v1.TaskGroups[0].Tasks[0].Config["command"] = "/bin/true"
	return []*structs.Job{v1, v0}
}

func TestJobHistory(t *testing.T) {
	f := newFakeAPI(t)
	f.jobs = []*structs.JobListStub{{ID: "example"}}
	addr := versionsFake(t, f, versionedJobs())
	env := map[string]string{"NOMADISH_ADDR": addr}

	code, out, errOut := runCLI(env, "job", "history", "example")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Version     = 1\nStable      = true\nSubmit Date = ", "\n\nVersion     = 0\nStable      = false"} {
		if !strings.Contains(out, want) {
			t.Errorf("history lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Diff") {
		t.Errorf("diff without -p:\n%s", out)
	}

	code, out, _ = runCLI(env, "job", "history", "-p", "example")
	t.Log("\n" + out)
	want := `Diff        =
+/- Job: "example"
+/- Task Group: "g"
  +/- Count: "1" => "3"
  +/- Task: "t"
    +/- Config {
      +/- command: "/bin/sleep" => "/bin/true"
        }`
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("history -p: exit %d, want\n%s\nin\n%s", code, want, out)
	}

	code, out, _ = runCLI(env, "job", "history", "-version", "0", "example")
	if code != 0 || strings.Contains(out, "Version     = 1") || !strings.Contains(out, "Version     = 0") {
		t.Fatalf("history -version 0: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(env, "job", "history", "-version", "7", "example"); code != 1 || !strings.Contains(errOut, "no version 7") {
		t.Fatalf("unknown version: exit %d, %q", code, errOut)
	}
}

func TestJobRevertAndScaleSendNomadBodies(t *testing.T) {
	f := newFakeAPI(t)
	f.jobs = []*structs.JobListStub{{ID: "example"}}
	f.job["example"] = versionedJobs()[0]
	env := map[string]string{"NOMADISH_ADDR": versionsFake(t, f, versionedJobs())}

	code, out, errOut := runCLI(env, "job", "revert", "-detach", "example", "0")
	if code != 0 || !strings.Contains(out, "Evaluation ID: "+evalID) {
		t.Fatalf("revert: exit %d, %q %q", code, out, errOut)
	}
	var rev structs.JobRevertRequest
	if err := json.Unmarshal([]byte(lastBody(f, "PUT /v1/job/example/revert")), &rev); err != nil || rev.JobID != "example" || rev.JobVersion != 0 {
		t.Fatalf("revert body %+v: %v", rev, err)
	}
	if code, _, errOut := runCLI(env, "job", "revert", "example", "x"); code != 1 || !strings.Contains(errOut, "not a version number") {
		t.Fatalf("bad version: exit %d %q", code, errOut)
	}

	code, _, errOut = runCLI(env, "job", "scale", "-detach", "example", "5")
	if code != 0 {
		t.Fatalf("scale: exit %d %q", code, errOut)
	}
	var sc structs.JobScaleRequest
	if err := json.Unmarshal([]byte(lastBody(f, "PUT /v1/job/example/scale")), &sc); err != nil || sc.Count == nil || *sc.Count != 5 || sc.Target["Group"] != "g" {
		t.Fatalf("scale body %+v: %v", sc, err)
	}
	if code, _, _ := runCLI(env, "job", "scale", "-detach", "example", "web", "2"); code != 0 {
		t.Fatalf("scale with a group: exit %d", code)
	}
	if err := json.Unmarshal([]byte(lastBody(f, "PUT /v1/job/example/scale")), &sc); err != nil || sc.Target["Group"] != "web" {
		t.Fatalf("scale body %+v: %v", sc, err)
	}
}

// lastBody is the body of the last request starting with prefix.
func lastBody(f *fakeAPI, prefix string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.requests) - 1; i >= 0; i-- {
		if strings.HasPrefix(f.requests[i], prefix) {
			return f.bodies[i]
		}
	}
	return ""
}

func TestJobRunCheckIndexConflict(t *testing.T) {
	f := newFakeAPI(t)
	f.registerStatus = http.StatusConflict
	f.registerBody = "Enforcing job modify index 5: job exists with conflicting job modify index: 9"
	code, _, errOut := f.run("job", "run", "-check-index", "5", writeJob(t, goodJob))
	if code != 1 || errOut != f.registerBody+"\nJob not updated\n" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var body struct {
		EnforceIndex   bool
		JobModifyIndex uint64
	}
	if err := json.Unmarshal([]byte(lastBody(f, "PUT /v1/jobs")), &body); err != nil || !body.EnforceIndex || body.JobModifyIndex != 5 {
		t.Fatalf("register body %+v: %v", body, err)
	}
	if code, _, errOut := f.run("job", "run", "-check-index", "x", writeJob(t, goodJob)); code != 1 || !strings.Contains(errOut, "-check-index") {
		t.Fatalf("bad -check-index: exit %d %q", code, errOut)
	}
}

func TestJobPlanPrintsDiffAndCheckIndexHint(t *testing.T) {
	f := newFakeAPI(t)
	vs := versionedJobs()
	diff := vs[1].Diff(vs[0])
	diff.TaskGroups[0].Updates = map[string]uint64{"create": 2, "ignore": 1}
	diff.TaskGroups[0].Tasks[0].Annotations = []string{"forces create/destroy update"}
	f.plan = &structs.JobPlanResponse{JobModifyIndex: 42, Diff: diff, Annotations: &structs.PlanAnnotations{
		DesiredTGUpdates: map[string]*structs.DesiredUpdates{"g": {Place: 2, Ignore: 1}}}}
	path := writeJob(t, goodJob)
	code, out, _ := f.run("job", "plan", path)
	t.Log("\n" + out)
	want := `+/- Job: "example"
+/- Task Group: "g" (2 create, 1 ignore)
  +/- Count: "1" => "3"
  +/- Task: "t" (forces create/destroy update)
    +/- Config {
      +/- command: "/bin/sleep" => "/bin/true"
        }

Scheduler dry-run:`
	if code != planChanges || !strings.HasPrefix(out, want) {
		t.Fatalf("exit %d, want prefix\n%s", code, want)
	}
	if !strings.Contains(out, "Job Modify Index: 42") || !strings.Contains(out, "nomadish job run -check-index 42 "+path+"\n") {
		t.Fatalf("no check-index hint:\n%s", out)
	}
}
