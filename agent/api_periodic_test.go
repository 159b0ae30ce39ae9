package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func batchJob(id string) *api.Job {
	job := api.NewBatchJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")
	task.Resources = &api.Resources{CPU: new(50), MemoryMB: new(32)}
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	return job
}

// TestOfficialClientPeriodicDispatchScaling drives periodic force,
// dispatch (payload, meta, idempotency token, refusals), children
// summaries and the scaling policies through github.com/hashicorp/nomad/api;
// the blocks survive JSON both ways.
func TestOfficialClientPeriodicDispatchScaling(t *testing.T) {
	a, c := devAgent(t)
	jobs := c.Jobs()

	// Parameterized parent: no eval, status running, block kept.
	pj := batchJob("report")
	pj.ParameterizedJob = &api.ParameterizedJobConfig{Payload: "required", MetaRequired: []string{"customer"}}
	pj.TaskGroups[0].Tasks[0].DispatchPayload = &api.DispatchPayloadConfig{File: "in.json"}
	reg, _, err := jobs.Register(pj, nil)
	if err != nil || reg.EvalID != "" {
		t.Fatalf("register parameterized: %+v, %v", reg, err)
	}
	got, _, err := jobs.Info("report", nil)
	if err != nil || got.ParameterizedJob == nil || got.ParameterizedJob.Payload != "required" ||
		got.TaskGroups[0].Tasks[0].DispatchPayload == nil || *got.Status != "running" {
		t.Fatalf("info = %+v, %v", got, err)
	}
	if _, _, err := jobs.Dispatch("report", nil, []byte("x"), "", nil); err == nil ||
		!strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "customer") {
		t.Fatalf("dispatch without required meta: %v", err)
	}
	wo := &api.WriteOptions{IdempotencyToken: "once"}
	d1, _, err := jobs.Dispatch("report", map[string]string{"customer": "acme"}, []byte(`{"n":1}`), "", wo)
	if err != nil || !strings.HasPrefix(d1.DispatchedJobID, "report/dispatch-") || d1.EvalID == "" {
		t.Fatalf("dispatch = %+v, %v", d1, err)
	}
	d2, _, err := jobs.Dispatch("report", map[string]string{"customer": "acme"}, []byte(`{"n":2}`), "", wo)
	if err != nil || d2.DispatchedJobID != d1.DispatchedJobID {
		t.Fatalf("idempotent dispatch = %+v, %v", d2, err)
	}
	child, _, err := jobs.Info(d1.DispatchedJobID, nil)
	if err != nil || *child.ParentID != "report" || string(child.Payload) != `{"n":1}` || !child.Dispatched {
		t.Fatalf("child = %+v, %v", child, err)
	}
	stubs, _, err := jobs.PrefixList("report")
	if err != nil || len(stubs) != 2 || !stubs[0].ParameterizedJob || stubs[0].JobSummary.Children == nil ||
		stubs[0].JobSummary.Children.Pending+stubs[0].JobSummary.Children.Running+stubs[0].JobSummary.Children.Dead != 1 {
		t.Fatalf("prefix list = %+v, %v", stubs, err)
	}
	sum, _, err := jobs.Summary("report", nil)
	if err != nil || sum.Children == nil {
		t.Fatalf("summary = %+v, %v", sum, err)
	}

	// Periodic parent: force launches a child.
	per := batchJob("nightly")
	per.Periodic = &api.PeriodicConfig{Spec: new("0 3 * * *"), ProhibitOverlap: new(true)}
	if reg, _, err := jobs.Register(per, nil); err != nil || reg.EvalID != "" {
		t.Fatalf("register periodic: %+v, %v", reg, err)
	}
	evalID, _, err := jobs.PeriodicForce("nightly", nil)
	if err != nil || evalID == "" {
		t.Fatalf("force: %q, %v", evalID, err)
	}
	stubs, _, err = jobs.PrefixList("nightly/periodic-")
	if err != nil || len(stubs) != 1 || stubs[0].ParentID != "nightly" {
		t.Fatalf("periodic children = %+v, %v", stubs, err)
	}
	// A bad cron is a 400 naming it.
	bad := batchJob("badcron")
	bad.Periodic = &api.PeriodicConfig{Spec: new("61 * * * *")}
	if _, _, err := jobs.Register(bad, nil); err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "61 * * * *") {
		t.Fatalf("bad cron: %v", err)
	}

	// Scaling: count defaults to min, scale bounds, policies.
	sj := batchJob("elastic")
	sj.Type = new("service")
	sj.TaskGroups[0].Count = nil
	sj.TaskGroups[0].Tasks[0].SetConfig("command", "/bin/sleep").SetConfig("args", []string{"300"})
	sj.TaskGroups[0].Scaling = &api.ScalingPolicy{Min: new(int64(1)), Max: new(int64(3))}
	if _, _, err := jobs.Register(sj, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := jobs.Scale("elastic", "g", new(4), "", false, nil, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("scale above max: %v", err)
	}
	pols, _, err := c.Scaling().ListPolicies(nil)
	if err != nil || len(pols) != 1 || pols[0].Target["Job"] != "elastic" || pols[0].Target["Group"] != "g" {
		t.Fatalf("policies = %+v, %v", pols, err)
	}
	pol, _, err := c.Scaling().GetPolicy(pols[0].ID, nil)
	if err != nil || *pol.Max != 3 || *pol.Min != 1 {
		t.Fatalf("policy = %+v, %v", pol, err)
	}

	// Unknown JSON fields: accepted, listed in Warnings.
	body, _ := json.Marshal(map[string]any{"Job": map[string]any{"ID": "warned", "Type": "batch", "Datacenters": []string{"dc1"},
		"Bogus": 1, "TaskGroups": []any{map[string]any{"Name": "g", "Tasks": []any{map[string]any{
			"Name": "t", "Driver": "raw_exec", "Config": map[string]any{"command": "/bin/true"}, "Colour": "red"}}}}}})
	req, _ := http.NewRequest("PUT", "http://"+a.HTTPAddr()+"/v1/jobs", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var rr struct{ Warnings string }
	if resp.StatusCode != 200 || json.Unmarshal(raw, &rr) != nil ||
		rr.Warnings != "2 warnings:\n\n* Job.Bogus: unknown field, ignored\n* Job.TaskGroups[0].Tasks[0].Colour: unknown field, ignored" {
		t.Fatalf("register with unknown fields: %d %s", resp.StatusCode, raw)
	}
}
