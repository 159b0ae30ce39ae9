package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// restartAPI is a job "web" with running allocations r1..rN (plus a
// complete one, never touched); restarts of the IDs in failing answer 500.
func restartAPI(t *testing.T, n int, failing ...string) (*cannedAPI, []string) {
	var allocs []*structs.AllocListStub
	var ids []string
	for i := 1; i <= n; i++ {
		id := strings.Repeat(string(rune('0'+i)), 8) + "-0000-4000-8000-000000000000"
		ids = append(ids, id)
		group := "g"
		if i%2 == 0 {
			group = "h"
		}
		allocs = append(allocs, &structs.AllocListStub{ID: id, JobID: "web", TaskGroup: group, ClientStatus: "running",
			DesiredStatus: "run", CreateIndex: uint64(i), TaskStates: map[string]*structs.TaskState{"main": {State: "running"}}})
	}
	allocs = append(allocs, &structs.AllocListStub{ID: "dddddddd-0000-4000-8000-000000000000", JobID: "web", TaskGroup: "g",
		ClientStatus: "complete", DesiredStatus: "run"})
	c := readAPI(t)
	c.answers["GET /v1/job/web/allocations"] = allocs
	for _, id := range ids {
		fail := strings.Contains(strings.Join(failing, ","), id)
		c.answers["PUT /v1/client/allocation/"+id+"/restart"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if fail {
				http.Error(w, "boom", 500)
				return
			}
			w.Write([]byte("{}"))
		})
	}
	return c, ids
}

func noSleep(t *testing.T) *[]time.Duration {
	var slept []time.Duration
	old := restartSleep
	restartSleep = func(d time.Duration) { slept = append(slept, d) }
	t.Cleanup(func() { restartSleep = old })
	return &slept
}

func withStdin(t *testing.T, s string) {
	old := promptStdin
	promptStdin = strings.NewReader(s)
	t.Cleanup(func() { promptStdin = old })
}

func TestJobRestartInBatches(t *testing.T) {
	slept := noSleep(t)
	c, ids := restartAPI(t, 5)
	code, out, errOut := c.run("job", "restart", "-batch-size", "2", "-batch-wait", "10s", "web")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for _, id := range ids {
		if len(c.query("PUT /v1/client/allocation/"+id+"/restart")) != 1 {
			t.Fatalf("%s not restarted once:\n%s", id, out)
		}
	}
	if len(c.query("PUT /v1/client/allocation/dddddddd-0000-4000-8000-000000000000/restart")) != 0 {
		t.Fatal("a complete allocation was restarted")
	}
	for _, want := range []string{"Restarting 5 allocations", "1st batch of 2 allocations", "2nd batch of 2", "3rd batch of 1 allocation\n",
		"Waiting 10s before restarting the next batch", "All allocations restarted successfully!"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if len(*slept) != 2 || (*slept)[0] != 10*time.Second {
		t.Fatalf("slept %v, want 10s twice (between three batches)", *slept)
	}
}

func TestJobRestartPercentGroupAndTask(t *testing.T) {
	noSleep(t)
	c, ids := restartAPI(t, 4)
	code, out, errOut := c.run("job", "restart", "-batch-size", "50%", "-group", "h", "-task", "main", "web")
	if code != 0 || !strings.Contains(out, "Restarting 2 allocations") || !strings.Contains(out, "1st batch of 1 allocation") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for i, id := range ids {
		got := c.body("PUT /v1/client/allocation/" + id + "/restart")
		if i%2 == 0 && len(got) != 0 {
			t.Fatalf("group g allocation %s restarted", id)
		}
		if i%2 == 1 && (len(got) != 1 || !strings.Contains(got[0], `"TaskName":"main"`)) {
			t.Fatalf("group h allocation %s: bodies %v", id, got)
		}
	}
}

func TestJobRestartOnError(t *testing.T) {
	noSleep(t)
	c, ids := restartAPI(t, 3, "11111111-0000-4000-8000-000000000000")
	code, out, errOut := c.run("job", "restart", "-on-error", "fail", "web")
	if code != 1 || !strings.Contains(errOut, "boom") || !strings.Contains(out, "canceled") {
		t.Fatalf("fail: exit %d: %s %s", code, out, errOut)
	}
	if len(c.query("PUT /v1/client/allocation/"+ids[1]+"/restart")) != 0 {
		t.Fatal("-on-error fail went on to the next batch")
	}
	// ask: "y" goes on; the run still exits 1 since one allocation failed.
	withStdin(t, "y\n")
	code, out, _ = c.run("job", "restart", "web")
	if code != 1 || !strings.Contains(out, "Continue with the next batch?") || len(c.query("PUT /v1/client/allocation/"+ids[2]+"/restart")) != 1 {
		t.Fatalf("ask y: exit %d:\n%s", code, out)
	}
	// -yes: no prompt.
	code, out, _ = c.run("job", "restart", "-yes", "web")
	if code != 1 || strings.Contains(out, "Continue with") || len(c.query("PUT /v1/client/allocation/"+ids[2]+"/restart")) != 2 {
		t.Fatalf("yes: exit %d:\n%s", code, out)
	}
}

func TestJobRestartBatchWaitAsk(t *testing.T) {
	slept := noSleep(t)
	c, ids := restartAPI(t, 3)
	withStdin(t, "5s\n")
	code, out, _ := c.run("job", "restart", "-batch-wait", "ask", "web")
	if code != 0 || strings.Count(out, "Proceed with the next batch?") != 1 || len(*slept) != 2 || (*slept)[1] != 5*time.Second {
		t.Fatalf("duration answer: exit %d, slept %v:\n%s", code, *slept, out)
	}
	withStdin(t, "n\n")
	code, out, _ = c.run("job", "restart", "-batch-wait", "ask", "web")
	if code != 1 || !strings.Contains(out, "canceled") || len(c.query("PUT /v1/client/allocation/"+ids[1]+"/restart")) != 1 {
		t.Fatalf("no: exit %d:\n%s", code, out)
	}
}

func TestJobRestartReschedule(t *testing.T) {
	noSleep(t)
	c, ids := restartAPI(t, 1)
	next := "eeeeeeee-0000-4000-8000-000000000000"
	// The replacement appears in the job's allocations once the stop came.
	stubs := c.answers["GET /v1/job/web/allocations"].([]*structs.AllocListStub)
	var stopped atomic.Bool
	c.answers["PUT /v1/allocation/"+ids[0]+"/stop"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stopped.Store(true)
		json.NewEncoder(w).Encode(structs.AllocStopResponse{EvalID: evalID})
	})
	c.answers["GET /v1/job/web/allocations"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out := stubs
		if stopped.Load() {
			out = append(append([]*structs.AllocListStub{}, stubs...), &structs.AllocListStub{ID: "other", JobID: "web"},
				&structs.AllocListStub{ID: next, JobID: "web"})
		}
		json.NewEncoder(w).Encode(out)
	})
	c.answers["GET /v1/allocation/other"] = &structs.Allocation{ID: "other", ClientStatus: "running"}
	c.answers["GET /v1/allocation/"+next] = &structs.Allocation{ID: next, PreviousAllocation: ids[0], ClientStatus: "running"}
	code, out, errOut := c.run("job", "restart", "-reschedule", "web")
	if code != 0 || !strings.Contains(out, `replaced by "eeeeeeee"`) {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if len(c.query("PUT /v1/allocation/"+ids[0]+"/stop")) != 1 || len(c.query("PUT /v1/client/allocation/"+ids[0]+"/restart")) != 0 {
		t.Fatal("not stopped, or restarted in place")
	}
	stopped.Store(false)
	c.answers["GET /v1/allocation/"+next] = &structs.Allocation{ID: next, PreviousAllocation: ids[0], ClientStatus: "failed"}
	if code, _, errOut := c.run("job", "restart", "-reschedule", "-on-error", "fail", "web"); code != 1 || !strings.Contains(errOut, "failed") {
		t.Fatalf("failed replacement: exit %d: %s", code, errOut)
	}
}

func TestJobRestartBadFlags(t *testing.T) {
	c, _ := restartAPI(t, 1)
	for _, args := range [][]string{
		{"-batch-size", "0"}, {"-batch-size", "150%"}, {"-batch-wait", "soon"}, {"-on-error", "retry"},
		{"-all-tasks", "-task", "main"}, {"-reschedule", "-task", "main"},
	} {
		if code, _, errOut := c.run(append(append([]string{"job", "restart"}, args...), "web")...); code != 1 || errOut == "" {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}
