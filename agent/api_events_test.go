package agent

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientEventStreamAcrossAJobsLife reads a job's life (register,
// placed, running, stopped) from GET /v1/event/stream with Nomad's Go
// client, filtered by the job's ID (the key of its Job events, a filter key
// of its evaluations and allocations), and decodes the payloads with the
// client's own helpers.
func TestOfficialClientEventStreamAcrossAJobsLife(t *testing.T) {
	_, c := devAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	topics := map[api.Topic][]string{api.TopicJob: {"ev"}, api.TopicAllocation: {"ev"}, api.TopicEvaluation: {"ev"}}
	stream, err := c.EventStream().Stream(ctx, topics, 0, nil)
	if err != nil {
		t.Fatal(err)
	}

	job := api.NewServiceJob("ev", "ev", "global", 50)
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(
		api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"60"})))
	reg, _, err := c.Jobs().Register(job, nil)
	if err != nil {
		t.Fatal(err)
	}

	seen := map[string]bool{}
	var lastIndex uint64
	stopped := false
	next := func(what string, done func() bool) {
		t.Helper()
		for !done() {
			var evs *api.Events
			select {
			case evs = <-stream:
			case <-ctx.Done():
				t.Fatalf("waiting for %s: %v (seen %v)", what, ctx.Err(), seen)
			}
			if evs == nil || evs.Err != nil {
				t.Fatalf("stream ended waiting for %s: %+v", what, evs)
			}
			if evs.Index < lastIndex {
				t.Fatalf("frame index %d after %d", evs.Index, lastIndex)
			}
			lastIndex = evs.Index
			for _, ev := range evs.Events {
				if ev.Index != evs.Index {
					t.Fatalf("event index %d in frame %d", ev.Index, evs.Index)
				}
				record(t, &ev, seen)
			}
		}
	}
	next("the job registered, its eval and a placed alloc", func() bool {
		return seen["Job/JobRegistered"] && seen["Evaluation"] && seen["Allocation/PlanResult"]
	})
	if lastIndex < reg.EvalCreateIndex {
		t.Fatalf("events up to index %d, the register was at %d", lastIndex, reg.EvalCreateIndex)
	}
	next("the alloc running", func() bool { return seen["Allocation/running"] })

	if _, _, err := c.Jobs().Deregister("ev", false, nil); err != nil {
		t.Fatal(err)
	}
	stopped = true
	next("the job stopped and its alloc stopped", func() bool {
		return stopped && seen["Job/JobDeregistered"] && seen["Allocation/stop"]
	})

	// Resuming from an index replays what the buffer still holds from it.
	again, err := c.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicJob: {"ev"}}, reg.EvalCreateIndex, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := <-again
	if first == nil || first.Err != nil || first.Index != reg.EvalCreateIndex || first.Events[0].Type != "JobRegistered" {
		t.Fatalf("resumed at %d: first frame %+v", reg.EvalCreateIndex, first)
	}
}

// record notes what an event says, checking its payload decodes.
func record(t *testing.T, ev *api.Event, seen map[string]bool) {
	t.Helper()
	switch ev.Topic {
	case api.TopicJob:
		j, err := ev.Job()
		if err != nil || j == nil || *j.ID != "ev" || ev.Key != "ev" {
			t.Fatalf("job event %+v: %v %v", ev, j, err)
		}
		seen["Job/"+ev.Type] = true
	case api.TopicEvaluation:
		e, err := ev.Evaluation()
		if err != nil || e == nil || e.JobID != "ev" || e.ID != ev.Key {
			t.Fatalf("eval event %+v: %v %v", ev, e, err)
		}
		seen["Evaluation"] = true
	case api.TopicAllocation:
		a, err := ev.Allocation()
		if err != nil || a == nil || a.JobID != "ev" || a.ID != ev.Key || ev.FilterKeys[0] != "ev" {
			t.Fatalf("alloc event %+v: %v %v", ev, a, err)
		}
		seen["Allocation/"+ev.Type] = true
		seen["Allocation/"+a.ClientStatus] = true
		seen["Allocation/"+a.DesiredStatus] = true
	default:
		t.Fatalf("event of topic %q passed the filter", ev.Topic)
	}
}

// TestEventStreamRequests checks the raw stream: headers at once, NDJSON
// frames, and 400 for a bad topic.
func TestEventStreamRequests(t *testing.T) {
	a, c := devAgent(t)
	base := "http://" + a.HTTPAddr() + "/v1/event/stream"
	resp, err := http.Get(base + "?topic=Job:a:b")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "topic") {
		t.Fatalf("bad topic: %d %s", resp.StatusCode, body)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"?topic=Node&index=1", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("stream: %d %v", resp.StatusCode, resp.Header)
	}
	nodes, _, err := c.Nodes().List(nil)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("nodes %v: %v", nodes, err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`"Topic":"Node","Type":"NodeRegistration","Key":%q`, nodes[0].ID); !strings.Contains(line, want) ||
		!strings.HasPrefix(line, `{"Index":`) || strings.Contains(line, "SecretID\":\"") && !strings.Contains(line, `"SecretID":""`) {
		t.Fatalf("first frame %s, want %s", line, want)
	}
}
