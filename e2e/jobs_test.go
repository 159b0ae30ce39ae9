package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// rawExecJob is a job of one raw_exec task running command with args.
func rawExecJob(id, typ, command string, args []string, memory int) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	update := quickHealthy(typ)
	return fmt.Sprintf(`job %q {
  type = %q%s
  group "g" {
    task "t" {
      driver = "raw_exec"
      kill_timeout = "1s"
      config {
        command = %q
        args    = [%s]
      }
      resources {
        cpu    = 100
        memory = %d
      }
    }
  }
}
`, id, typ, update, command, strings.Join(q, ", "), memory)
}

// quickHealthy is the update block of the tests' service jobs: an
// allocation is healthy after 1 s, not Nomad's default 10 s, since
// `job run` follows the deployment. Other job types get none.
func quickHealthy(typ string) string {
	if typ != "service" {
		return ""
	}
	return "\n  update {\n    min_healthy_time = \"1s\"\n  }"
}

type allocRow struct {
	ID, EvalID, NodeID, DesiredStatus, ClientStatus string
}

// jobAllocs reads GET /v1/job/:id/allocations.
func jobAllocs(t *testing.T, id string) []allocRow {
	t.Helper()
	var out []allocRow
	if err := getJSON(dev.addr+"/v1/job/"+id+"/allocations", &out); err != nil {
		t.Fatalf("reading allocations of %s: %v", id, err)
	}
	return out
}

// waitAllocs waits until the job has want allocations and every one
// satisfies ok.
func waitAllocs(t *testing.T, id string, want int, what string, ok func(a allocRow) bool) []allocRow {
	t.Helper()
	var allocs []allocRow
	eventually(t, 30*time.Second, id+" allocations "+what, func() (bool, string) {
		allocs = jobAllocs(t, id)
		if len(allocs) != want {
			return false, fmt.Sprintf("%d allocations: %+v", len(allocs), allocs)
		}
		for _, a := range allocs {
			if !ok(a) {
				return false, fmt.Sprintf("%+v", allocs)
			}
		}
		return true, ""
	})
	return allocs
}

var createdAlloc = regexp.MustCompile(`Allocation "([0-9a-f]{8})" created: node "[0-9a-f]{8}", group "g"`)

func TestBatchJobRunsAndLogs(t *testing.T) {
	id := uniqueID("e2e-batch")
	path := writeFile(t, "batch.nomad.hcl", rawExecJob(id, "batch", "/bin/echo", []string{"hello"}, 32))
	start := time.Now()
	r := nomadish(t, "job", "run", path)
	if r.code != 0 || !strings.Contains(r.out, `==> Monitoring evaluation "`) || !createdAlloc.MatchString(r.out) {
		t.Fatalf("job run: %v", r)
	}
	short := createdAlloc.FindStringSubmatch(r.out)[1]
	waitAllocs(t, id, 1, "complete", func(a allocRow) bool { return a.ClientStatus == "complete" })
	t.Logf("job run -> complete: %v", time.Since(start))

	if r := nomadish(t, "alloc", "logs", short, "t"); r.code != 0 || r.out != "hello\n" {
		t.Fatalf("alloc logs: %v", r)
	}
	if r := nomadish(t, "alloc", "logs", short); r.code != 0 || r.out != "hello\n" {
		t.Fatalf("alloc logs without task: %v", r)
	}
	if r := nomadish(t, "alloc", "status", short); r.code != 0 || !strings.Contains(r.out, `Task "t" is "dead"`) ||
		!strings.Contains(r.out, "Exit Code: 0") {
		t.Fatalf("alloc status: %v", r)
	}
	r = nomadish(t, "job", "status", id)
	if r.code != 0 || !regexp.MustCompile(short+`\s+[0-9a-f]{8}\s+g\s+run\s+complete\s+\d+s ago`).MatchString(r.out) {
		t.Fatalf("job status: %v", r)
	}
	if r := nomadish(t, "status"); r.code != 0 || !regexp.MustCompile(regexp.QuoteMeta(id)+`\s+batch\s+50`).MatchString(r.out) {
		t.Fatalf("status: %v", r)
	}
	if r := nomadish(t, "job", "inspect", id); r.code != 0 || !strings.Contains(r.out, `"ID": "`+id+`"`) {
		t.Fatalf("job inspect: %v", r)
	}
}

func TestServiceJobRunsAndStops(t *testing.T) {
	id := uniqueID("e2e-service")
	job := rawExecJob(id, "service", "/bin/sh", []string{"-c", "while true; do sleep 0.1; done"}, 32)
	path := writeFile(t, "service.nomad.hcl", job)
	if r := nomadish(t, "job", "plan", path); r.code != 1 || !strings.Contains(r.out, `Task Group: "g" (1 create)`) {
		t.Fatalf("job plan of a new job: %v", r)
	}
	if r := nomadish(t, "job", "run", path); r.code != 0 || !createdAlloc.MatchString(r.out) {
		t.Fatalf("job run: %v", r)
	}
	waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	if r := nomadish(t, "job", "status", id); r.code != 0 || !regexp.MustCompile(`g\s+run\s+running`).MatchString(r.out) {
		t.Fatalf("job status: %v", r)
	}
	if r := nomadish(t, "job", "plan", path); r.code != 0 || !strings.Contains(r.out, `(1 ignore)`) {
		t.Fatalf("job plan of an unchanged job: %v", r)
	}
	r := nomadish(t, "job", "stop", id)
	if r.code != 0 || !strings.Contains(r.out, `finished with status "complete"`) {
		t.Fatalf("job stop: %v", r)
	}
	waitAllocs(t, id, 1, "stopped", func(a allocRow) bool {
		return a.DesiredStatus == "stop" && a.ClientStatus == "complete"
	})
	if r := nomadish(t, "job", "status", id); r.code != 0 || !strings.Contains(r.out, "dead") {
		t.Fatalf("job status after stop: %v", r)
	}
}

func TestJobThatCannotFitExits2(t *testing.T) {
	id := uniqueID("e2e-huge")
	path := writeFile(t, "huge.nomad.hcl", rawExecJob(id, "service", "/bin/sleep", []string{"60"}, 10000000))
	r := nomadish(t, "job", "run", path)
	if r.code != 2 || !strings.Contains(r.out, "failed to place all allocations") ||
		!strings.Contains(r.out, `Dimension "memory" exhausted on 1 nodes`) ||
		!strings.Contains(r.out, "waiting for additional capacity to place remainder") {
		t.Fatalf("job run: %v", r)
	}
	if n := len(jobAllocs(t, id)); n != 0 {
		t.Fatalf("%d allocations placed", n)
	}
	if r := nomadish(t, "job", "stop", "-purge", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
}

// jobIDs lists the registered jobs through the API.
func jobIDs(t *testing.T) []string {
	t.Helper()
	var jobs []struct{ ID string }
	if err := getJSON(dev.addr+"/v1/jobs", &jobs); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

func TestBadInputChangesNothing(t *testing.T) {
	before := fmt.Sprint(jobIDs(t))
	bad := writeFile(t, "bad.nomad.hcl", "job \"e2e-bad\" {\n  group \"g\" {\n    count = = 2\n  }\n}\n")
	if r := nomadish(t, "job", "run", bad); r.code != 1 || !regexp.MustCompile(`bad\.nomad\.hcl:3:\d+`).MatchString(r.errOut) {
		t.Errorf("malformed HCL: %v", r)
	}

	unknown := strings.Replace(rawExecJob("e2e-nodriver", "batch", "/bin/true", nil, 32), `"raw_exec"`, `"no_such_driver"`, 1)
	r := nomadish(t, "job", "run", writeFile(t, "nodriver.nomad.hcl", unknown))
	if r.code != 1 || !strings.Contains(r.errOut, "no_such_driver") {
		t.Errorf("unknown driver: %v", r)
	}
	if r := nomadish(t, "job", "status", "e2e-nodriver"); r.code != 1 || !strings.Contains(r.errOut, "no job(s)") {
		t.Errorf("job status of the rejected job: %v", r)
	}

	for _, body := range []string{"{not json", `{"Job": {"ID": 12}}`, `{"Job": null}`} {
		req, _ := http.NewRequest(http.MethodPut, dev.addr+"/v1/jobs", strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("PUT /v1/jobs %q: status %d, want 400", body, resp.StatusCode)
		}
	}
	if after := fmt.Sprint(jobIDs(t)); after != before {
		t.Errorf("jobs changed by bad input: %s -> %s", before, after)
	}
}

func TestValidateVersionAndUsage(t *testing.T) {
	path := writeFile(t, "ok.nomad.hcl", rawExecJob("e2e-validate", "batch", "/bin/true", nil, 32))
	if r := nomadish(t, "job", "validate", path); r.code != 0 || !strings.Contains(r.out, "Job validation successful") {
		t.Errorf("job validate: %v", r)
	}
	if r := nomadish(t, "version"); r.code != 0 || !strings.HasPrefix(r.out, "nomadish v") {
		t.Errorf("version: %v", r)
	}
	if r := nomadish(t, "job", "frobnicate"); r.code != 1 || !strings.Contains(r.errOut, "Usage:") {
		t.Errorf("unknown command: %v", r)
	}
	if r := nomadishAt(t, "http://127.0.0.1:1", "status"); r.code != 1 || !strings.HasPrefix(r.errOut, "Error querying jobs:") {
		t.Errorf("unreachable agent: %v", r)
	}
}

func TestAllocLogsFollowAndStderr(t *testing.T) {
	id := uniqueID("e2e-follow")
	script := "echo out1; echo err1 >&2; sleep 0.5; echo out2"
	path := writeFile(t, "follow.nomad.hcl", rawExecJob(id, "batch", "/bin/sh", []string{"-c", script}, 32))
	r := nomadish(t, "job", "run", path)
	if r.code != 0 || !createdAlloc.MatchString(r.out) {
		t.Fatalf("job run: %v", r)
	}
	short := createdAlloc.FindStringSubmatch(r.out)[1]
	// -f returns once the task is dead and its log drained.
	if r := nomadish(t, "alloc", "logs", "-f", short, "t"); r.code != 0 || r.out != "out1\nout2\n" {
		t.Fatalf("alloc logs -f: %v", r)
	}
	if r := nomadish(t, "alloc", "logs", "-stderr", short); r.code != 0 || r.out != "err1\n" {
		t.Fatalf("alloc logs -stderr: %v", r)
	}
	if r := nomadish(t, "alloc", "logs", "-tail", "-n", "1", short); r.code != 0 || r.out != "out2\n" {
		t.Fatalf("alloc logs -tail -n 1: %v", r)
	}
}

// idSeq numbers the IDs uniqueID hands out.
var idSeq atomic.Int64

// uniqueID returns base with a suffix no other call in this test binary
// gets ("-001", "-002", ...), for the job IDs and node names of tests on
// the dev agent. It serves every test of the run, and the allocations of a
// stopped, even purged, job stay listed under its ID (a stopped node under
// its name): a test repeated by -count must not find the last iteration's.
// The fixed width keeps one ID from being a prefix of another.
func uniqueID(base string) string {
	return fmt.Sprintf("%s-%03d", base, idSeq.Add(1))
}
