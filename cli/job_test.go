package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

const goodJob = `job "example" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/echo"
        args    = ["${var.word}"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}

variable "word" {
  default = "hello"
}
`

func writeJob(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "job.nomad.hcl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func eval(id, status string) *structs.Evaluation {
	return &structs.Evaluation{ID: id, JobID: "example", Status: status, TriggeredBy: structs.EvalTriggerJobRegister}
}

func TestJobRunMonitorsToPlacement(t *testing.T) {
	f := newFakeAPI(t)
	f.registerEval = evalID
	f.evals[evalID] = []*structs.Evaluation{eval(evalID, "pending"), eval(evalID, "complete")}
	f.evalAllocs[evalID] = []*structs.AllocListStub{{ID: allocID, EvalID: evalID, NodeID: nodeID, JobID: "example",
		TaskGroup: "g", DesiredStatus: "run", ClientStatus: "pending"}}

	code, out, errOut := f.run("job", "run", "-var", "word=bonjour", writeJob(t, goodJob))
	t.Log("\n" + out)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	for _, want := range []string{
		`==> Monitoring evaluation "e1e1e1e1"`,
		`Evaluation triggered by job "example"`,
		`Evaluation status changed: "pending" -> "complete"`,
		`Allocation "a1a1a1a1" created: node "n1n1n1n1", group "g"`,
		`==> Evaluation "e1e1e1e1" finished with status "complete"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The second eval read is a blocking query past the first answer's index.
	if f.requestCount("GET /v1/evaluation/"+evalID+"?index=1&wait=") != 1 {
		t.Errorf("no blocking query; requests: %q", f.requests)
	}
	// The job went out parsed, with the -var applied.
	var body struct{ Job *structs.Job }
	if err := json.Unmarshal([]byte(f.bodies[0]), &body); err != nil || body.Job == nil {
		t.Fatalf("register body %q: %v", f.bodies[0], err)
	}
	if args := body.Job.TaskGroups[0].Tasks[0].Config["args"]; !strings.Contains(jsonString(args), "bonjour") {
		t.Errorf("args = %v, want the -var value", args)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestJobRunPlacementFailureExits2(t *testing.T) {
	f := newFakeAPI(t)
	f.registerEval = evalID
	e := eval(evalID, "complete")
	e.BlockedEval = blockID
	e.FailedTGAllocs = map[string]*structs.AllocMetric{"g": {
		NodesEvaluated: 2, NodesExhausted: 1, DimensionExhausted: map[string]int{"memory": 1},
		ConstraintFiltered: map[string]int{"missing drivers": 1}, CoalescedFailures: 2,
	}}
	f.evals[evalID] = []*structs.Evaluation{e}

	code, out, _ := f.run("job", "run", writeJob(t, goodJob))
	t.Log("\n" + out)
	if code != 2 {
		t.Fatalf("exit %d, want 2; output:\n%s", code, out)
	}
	for _, want := range []string{
		`finished with status "complete" but failed to place all allocations:`,
		`Task Group "g" (failed to place 3 allocations):`,
		`* Constraint "missing drivers": 1 nodes excluded by filter`,
		`* Resources exhausted on 1 nodes`,
		`* Dimension "memory" exhausted on 1 nodes`,
		`Evaluation "b1b1b1b1" waiting for additional capacity to place remainder`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestJobRunDetach(t *testing.T) {
	f := newFakeAPI(t)
	f.registerEval = evalID
	code, out, _ := f.run("job", "run", writeJob(t, goodJob), "-detach")
	if code != 0 || !strings.Contains(out, "Evaluation ID: "+evalID) {
		t.Fatalf("exit %d, output %q", code, out)
	}
	if n := f.requestCount("GET "); n != 0 {
		t.Errorf("detached run made %d GETs: %q", n, f.requests)
	}
}

var fileLineCol = regexp.MustCompile(`job\.nomad\.hcl:\d+:\d+`)

func TestJobRunBadHCLSendsNothing(t *testing.T) {
	for name, body := range map[string]string{
		"syntax":        "job \"x\" {\n  group \"g\" {\n    count = \n  }\n}\n",
		"unknown block": "job \"x\" {\n  bogus {}\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeAPI(t)
			for _, cmd := range [][]string{{"job", "run"}, {"job", "validate"}} {
				code, _, errOut := f.run(append(cmd, writeJob(t, body))...)
				if code != 1 || !fileLineCol.MatchString(errOut) {
					t.Errorf("%v: exit %d, stderr %q; want 1 and file:line:col", cmd, code, errOut)
				}
			}
			code, _, _ := f.run("job", "plan", writeJob(t, body))
			if code != 255 {
				t.Errorf("plan exit %d, want 255", code)
			}
			if len(f.requests) != 0 {
				t.Errorf("requests were sent: %q", f.requests)
			}
		})
	}
}

func TestJobRunServerErrorSurfaces(t *testing.T) {
	f := newFakeAPI(t)
	f.registerStatus, f.registerBody = 400, `group "g": task "t": unknown driver "nope"`
	code, _, errOut := f.run("job", "run", writeJob(t, goodJob))
	if code != 1 || !strings.Contains(errOut, "Error submitting job") || !strings.Contains(errOut, `unknown driver "nope"`) ||
		!strings.Contains(errOut, "400") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestJobValidate(t *testing.T) {
	code, out, errOut := runCLI(nil, "job", "validate", writeJob(t, goodJob))
	if code != 0 || !strings.Contains(out, "Job validation successful") {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	bad := strings.Replace(goodJob, "memory = 32", "memory = 1", 1)
	code, _, errOut = runCLI(nil, "job", "validate", writeJob(t, bad))
	if code != 1 || !strings.Contains(errOut, "minimum memory value") {
		t.Fatalf("exit %d, err %q", code, errOut)
	}
}

func TestJobPlanExitCodes(t *testing.T) {
	f := newFakeAPI(t)
	path := writeJob(t, goodJob)
	f.plan = &structs.JobPlanResponse{JobModifyIndex: 7, Annotations: &structs.PlanAnnotations{
		DesiredTGUpdates: map[string]*structs.DesiredUpdates{"g": {Place: 2, Ignore: 1}}}}
	code, out, _ := f.run("job", "plan", path)
	if code != 1 || !strings.Contains(out, `+ Task Group: "g" (2 create, 1 ignore)`) ||
		!strings.Contains(out, "All tasks successfully allocated") || !strings.Contains(out, "Job Modify Index: 7") {
		t.Fatalf("changes: exit %d, output:\n%s", code, out)
	}
	f.plan = &structs.JobPlanResponse{Annotations: &structs.PlanAnnotations{
		DesiredTGUpdates: map[string]*structs.DesiredUpdates{"g": {Ignore: 1}}}}
	if code, out, _ := f.run("job", "plan", path); code != 0 || !strings.Contains(out, `Task Group: "g" (1 ignore)`) {
		t.Fatalf("no changes: exit %d, output:\n%s", code, out)
	}
	f.plan.FailedTGAllocs = map[string]*structs.AllocMetric{"g": {NodesEvaluated: 1, NodesExhausted: 1}}
	if code, out, _ := f.run("job", "plan", path); !strings.Contains(out, "WARNING: Failed to place all allocations") || code != 0 {
		t.Fatalf("failures: exit %d, output:\n%s", code, out)
	}
	f.srv.Close()
	if code, _, errOut := f.run("job", "plan", path); code != 255 || !strings.Contains(errOut, "Error during plan") {
		t.Fatalf("server down: exit %d, %q", code, errOut)
	}
}

func TestJobStopMonitors(t *testing.T) {
	f := newFakeAPI(t)
	f.jobs = []*structs.JobListStub{{ID: "example", Type: "service", Status: "running"}}
	f.deregEval = evalID
	f.evals[evalID] = []*structs.Evaluation{eval(evalID, "complete")}
	code, out, errOut := f.run("job", "stop", "-purge", "exa")
	if code != 0 || !strings.Contains(out, `finished with status "complete"`) {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	if f.requestCount("DELETE /v1/job/example?purge=true") != 1 {
		t.Errorf("requests %q", f.requests)
	}
	code, out, _ = f.run("job", "stop", "-detach", "example")
	if code != 0 || strings.TrimSpace(out) != evalID {
		t.Fatalf("detach: exit %d, out %q", code, out)
	}
}
