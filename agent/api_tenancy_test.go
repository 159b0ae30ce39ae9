package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientNamespaces drives namespaces through a real dev agent
// with the official client's Namespaces(), Jobs() and Allocations().
func TestOfficialClientNamespaces(t *testing.T) {
	_, c := devAgent(t)
	ns := c.Namespaces()

	list, _, err := ns.List(nil)
	if err != nil || len(list) != 1 || list[0].Name != "default" {
		t.Fatalf("namespaces %+v: %v", list, err)
	}
	if _, err := ns.Register(&api.Namespace{Name: "bad name"}, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("bad name: %v", err)
	}
	// Bad bodies are 400s naming the problem, and write nothing.
	base := c.Address()
	for body, want := range map[string]string{
		"{\n  \"Name\": ": "line 2",
		`{"Name": "y"}`:   "does not match",
		`{"Name": 7}`:     "Name",
	} {
		if code, msg := httpDo(t, "PUT", base+"/v1/namespace/x", body); code != 400 || !strings.Contains(msg, want) {
			t.Errorf("PUT %q: %d %q, want 400 with %q", body, code, msg, want)
		}
	}
	if code, msg := httpDo(t, "PUT", base+"/v1/node/pools", `{"Name": "p", "SchedulerConfiguration": {"SchedulerAlgorithm": "x"}}`); code != 400 || !strings.Contains(msg, "scheduler algorithm") {
		t.Errorf("bad pool: %d %q", code, msg)
	}
	job := serviceJob("web", "300", nil)
	job.Namespace = pointerOf("team-a")
	if _, _, err := c.Jobs().Register(job, nil); err == nil || !strings.Contains(err.Error(), `namespace "team-a" does not exist`) {
		t.Fatalf("job in unknown namespace: %v", err)
	}

	wm, err := ns.Register(&api.Namespace{Name: "team-a", Description: "Team A", Meta: map[string]string{"owner": "a"}}, nil)
	if err != nil || wm.LastIndex == 0 {
		t.Fatalf("register: %+v %v", wm, err)
	}
	got, _, err := ns.Info("team-a", nil)
	if err != nil || got.Description != "Team A" || got.Meta["owner"] != "a" || got.CreateIndex == 0 {
		t.Fatalf("info %+v: %v", got, err)
	}
	if _, _, err := ns.Info("nope", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("info unknown: %v", err)
	}

	// A job in team-a runs and is listed there and under "*", not in default.
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	teamA := &api.QueryOptions{Namespace: "team-a"}
	waitFor(t, 15*time.Second, "the team-a job's alloc to run", func() error {
		allocs, _, err := c.Jobs().Allocations("web", false, teamA)
		if err != nil || len(allocs) != 1 || allocs[0].ClientStatus != "running" {
			return fmt.Errorf("allocs %v: %v", allocs, err)
		}
		return nil
	})
	for q, want := range map[string]int{"default": 0, "team-a": 1, "*": 1} {
		jobs, _, err := c.Jobs().List(&api.QueryOptions{Namespace: q})
		if err != nil || len(jobs) != want {
			t.Errorf("jobs in %q: %d (want %d): %v", q, len(jobs), want, err)
		}
		allocs, _, err := c.Allocations().List(&api.QueryOptions{Namespace: q})
		if err != nil || len(allocs) != want {
			t.Errorf("allocs in %q: %d (want %d): %v", q, len(allocs), want, err)
		}
	}

	// Not deletable while the job lives; "default" never.
	if _, err := ns.Delete("team-a", nil); err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "web") {
		t.Fatalf("delete with a live job: %v", err)
	}
	if _, err := ns.Delete("default", nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("delete default: %v", err)
	}
	if _, _, err := c.Jobs().Deregister("web", true, &api.WriteOptions{Namespace: "team-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Delete("team-a", nil); err != nil {
		t.Fatal(err)
	}
	if list, _, _ := ns.List(nil); len(list) != 1 {
		t.Fatalf("after delete: %+v", list)
	}
}

// TestOfficialClientNodePools drives node pools with the official client's
// NodePools(): the built-in pools, create, info, a job held out of the dev
// node (in "default") by its pool, the pool's jobs and nodes, delete.
func TestOfficialClientNodePools(t *testing.T) {
	_, c := devAgent(t)
	np := c.NodePools()
	pools, _, err := np.List(nil)
	if err != nil || len(pools) != 2 || pools[0].Name != "all" || pools[1].Name != "default" {
		t.Fatalf("pools %+v: %v", pools, err)
	}
	if _, err := np.Register(&api.NodePool{Name: "default", Description: "x"}, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("modify default: %v", err)
	}
	if _, err := np.Register(&api.NodePool{Name: "gpu", SchedulerConfiguration: &api.NodePoolSchedulerConfiguration{SchedulerAlgorithm: "nope"}}, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("bad algorithm: %v", err)
	}
	job := serviceJob("train", "300", nil)
	job.NodePool = pointerOf("gpu")
	if _, _, err := c.Jobs().Register(job, nil); err == nil || !strings.Contains(err.Error(), `node pool "gpu" does not exist`) {
		t.Fatalf("job in unknown pool: %v", err)
	}
	if _, err := np.Register(&api.NodePool{Name: "gpu", Description: "GPUs",
		SchedulerConfiguration: &api.NodePoolSchedulerConfiguration{SchedulerAlgorithm: "spread"}}, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := np.Info("gpu", nil)
	if err != nil || got.Description != "GPUs" || got.SchedulerConfiguration == nil || got.SchedulerConfiguration.SchedulerAlgorithm != "spread" {
		t.Fatalf("info %+v: %v", got, err)
	}

	// The only node is in "default": the gpu job is registered but not placed.
	resp, _, err := c.Jobs().Register(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the gpu job's eval to complete", func() error {
		ev, _, err := c.Evaluations().Info(resp.EvalID, nil)
		if err != nil || ev.Status != "complete" {
			return fmt.Errorf("eval %+v: %v", ev, err)
		}
		return nil
	})
	if allocs, _, _ := c.Jobs().Allocations("train", false, nil); len(allocs) != 0 {
		t.Fatalf("gpu job placed on a default node: %+v", allocs)
	}
	jobs, _, err := np.ListJobs("gpu", nil)
	if err != nil || len(jobs) != 1 || jobs[0].ID != "train" {
		t.Fatalf("pool jobs %+v: %v", jobs, err)
	}
	for pool, want := range map[string]int{"gpu": 0, "default": 1, "all": 1} {
		nodes, _, err := np.ListNodes(pool, nil)
		if err != nil || len(nodes) != want {
			t.Errorf("nodes of %s: %d (want %d): %v", pool, len(nodes), want, err)
		}
	}
	if _, err := np.Delete("gpu", nil); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("delete in use: %v", err)
	}
	if _, _, err := c.Jobs().Deregister("train", true, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := np.Delete("gpu", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := np.Info("gpu", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("info after delete: %v", err)
	}
	// GET /v1/node/:id/allocations still answers beside the pool routes.
	nodes, _, _ := c.Nodes().List(nil)
	if _, _, err := c.Nodes().Allocations(nodes[0].ID, nil); err != nil {
		t.Fatal(err)
	}
	if code, _ := httpDo(t, "GET", c.Address()+"/v1/node/"+nodes[0].ID+"/drain", ""); code != 405 {
		t.Errorf("GET drain: %d, want 405", code)
	}
	if code, _ := httpDo(t, "GET", c.Address()+"/v1/node/"+nodes[0].ID+"/nope", ""); code != 404 {
		t.Errorf("GET unknown node sub-resource: %d, want 404", code)
	}
}
