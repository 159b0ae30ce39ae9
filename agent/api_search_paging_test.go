package agent

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/nomad/api/contexts"

	"github.com/nomadish/nomadish/agent/config"
)

// serverOnlyAgent starts an in-process server-only dev agent (no client:
// jobs register, nothing runs) and returns an official client for it.
func serverOnlyAgent(t *testing.T, aclEnabled bool) *api.Client {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Name = "lists"
	cfg.Ports = config.Ports{}
	cfg.Client.Enabled = false
	cfg.ACL.Enabled = aclEnabled
	a, err := New(cfg, hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Warn, Output: t.Output()}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Shutdown(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "a leader", func() error {
		if l, err := c.Status().Leader(); err != nil || l == "" {
			return fmt.Errorf("leader %q: %v", l, err)
		}
		return nil
	})
	return c
}

// searchJob is a one-group docker job: group "cache", task "redis", image
// redis:7, service "redis-cache".
func searchJob(id, ns string) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Namespace = &ns
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("redis", "docker").SetConfig("image", "redis:7")
	tg := api.NewTaskGroup("cache", 1).AddTask(task)
	tg.Services = []*api.Service{{Name: "redis-cache", Provider: "nomad"}}
	job.AddTaskGroup(tg)
	return job
}

func registerJobs(t *testing.T, c *api.Client, ns string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if _, _, err := c.Jobs().Register(searchJob(id, ns), &api.WriteOptions{Namespace: ns}); err != nil {
			t.Fatalf("register %s: %v", id, err)
		}
	}
}

// TestOfficialClientListPaging pages /v1/jobs and /v1/evaluations with the
// official client's QueryOptions{PerPage, NextToken, Filter, Reverse} and
// reads QueryMeta.NextToken (X-Nomad-NextToken).
func TestOfficialClientListPaging(t *testing.T) {
	c := serverOnlyAgent(t, false)
	var ids []string
	for i := range 25 {
		ids = append(ids, fmt.Sprintf("pg-%02d", i))
	}
	registerJobs(t, c, "default", ids...)

	var got []string
	q := &api.QueryOptions{PerPage: 10}
	pages := 0
	for {
		jobs, meta, err := c.Jobs().List(q)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, j := range jobs {
			got = append(got, j.ID)
		}
		if meta.NextToken == "" {
			break
		}
		if want := "default." + ids[len(got)]; meta.NextToken != want {
			t.Fatalf("next token %q, want %q", meta.NextToken, want)
		}
		q.NextToken = meta.NextToken
	}
	if pages != 3 || !slices.Equal(got, ids) {
		t.Fatalf("%d pages: %v", pages, got)
	}

	rev, meta, err := c.Jobs().List(&api.QueryOptions{PerPage: 3, Reverse: true})
	// (the official client sorts a job list by ID: the page is the last three)
	if err != nil || !slices.Equal(jobIDs(rev), []string{"pg-22", "pg-23", "pg-24"}) || meta.NextToken != "default.pg-21" {
		t.Fatalf("reverse page %v, next %q: %v", jobIDs(rev), meta.NextToken, err)
	}
	filtered, meta, err := c.Jobs().List(&api.QueryOptions{Filter: `ID matches "^pg-1[0-4]$" and Status == "pending"`})
	if err != nil || len(filtered) != 5 || meta.NextToken != "" {
		t.Fatalf("filtered %d jobs, next %q: %v", len(filtered), meta.NextToken, err)
	}
	all, _, err := c.Jobs().List(nil) // unpaged: the shared answer, every job
	if err != nil || len(all) != 25 {
		t.Fatalf("unpaged %d jobs: %v", len(all), err)
	}

	// Workers may still be writing evaluations (blocked ones: no nodes):
	// page until the pages hold exactly what an unpaged list holds.
	waitFor(t, 10*time.Second, "paged evaluations equal to the list", func() error {
		paged, err := pageEvals(c)
		if err != nil {
			return err
		}
		all, _, err := c.Evaluations().List(nil)
		if err != nil {
			return err
		}
		var want []string
		for _, e := range all {
			want = append(want, e.ID)
		}
		slices.Sort(want)
		slices.Sort(paged)
		if len(want) < 25 || !slices.Equal(paged, want) {
			return fmt.Errorf("paged %d evaluations, listed %d", len(paged), len(want))
		}
		return nil
	})
	if allocs, meta, err := c.Allocations().List(&api.QueryOptions{PerPage: 5}); err != nil || len(allocs) != 0 || meta.NextToken != "" {
		t.Fatalf("allocations %v, %q: %v", allocs, meta.NextToken, err)
	}
	if nodes, _, err := c.Nodes().List(&api.QueryOptions{Filter: `Status == "ready"`}); err != nil || len(nodes) != 0 {
		t.Fatalf("nodes %v: %v", nodes, err)
	}

	_, _, err = c.Jobs().List(&api.QueryOptions{Filter: `Status ==`})
	wantAPIError(t, err, http.StatusBadRequest, "failed to read filter expression")
	_, _, err = c.Allocations().List(&api.QueryOptions{Filter: `NoSuchField == "x"`})
	wantAPIError(t, err, http.StatusBadRequest, "filter")
	_, _, err = c.Evaluations().List(&api.QueryOptions{NextToken: "garbage"})
	wantAPIError(t, err, http.StatusBadRequest, "invalid next_token")
}

// TestOfficialClientSearch runs prefix and fuzzy searches through the
// official client's Search(): contexts, truncation at 20, scopes, and a
// token that sees only one namespace's jobs and no nodes.
func TestOfficialClientSearch(t *testing.T) {
	c := serverOnlyAgent(t, true)
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	if _, err := c.Namespaces().Register(&api.Namespace{Name: "team-b"}, nil); err != nil {
		t.Fatal(err)
	}
	var many []string
	for i := range 22 {
		many = append(many, fmt.Sprintf("web-%02d", i))
	}
	registerJobs(t, c, "default", many...)
	registerJobs(t, c, "team-b", "web-secret")

	res, _, err := c.Search().PrefixSearch("web-", contexts.Jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Matches[contexts.Jobs]; len(m) != 20 || m[0] != "web-00" || !res.Truncations[contexts.Jobs] {
		t.Fatalf("jobs %v, truncated %v", m, res.Truncations)
	}
	res, qm, err := c.Search().PrefixSearch("web-1", contexts.All, &api.QueryOptions{Namespace: "*"})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Matches[contexts.Jobs]; len(m) != 10 || res.Truncations[contexts.Jobs] {
		t.Fatalf("all contexts: jobs %v", m)
	}
	if _, ok := res.Matches[contexts.Evals]; !ok || qm.LastIndex == 0 {
		t.Fatalf("all contexts: %+v", res)
	}
	res, _, err = c.Search().PrefixSearch("team", contexts.Namespaces, nil)
	if err != nil || !slices.Equal(res.Matches[contexts.Namespaces], []string{"team-b"}) {
		t.Fatalf("namespaces %+v: %v", res, err)
	}
	_, _, err = c.Search().PrefixSearch("x", "bogus", nil)
	wantAPIError(t, err, http.StatusBadRequest, "invalid search context")

	fz, _, err := c.Search().FuzzySearch("redis", contexts.All, &api.QueryOptions{Namespace: "*"})
	if err != nil {
		t.Fatal(err)
	}
	tasks := fz.Matches[contexts.Tasks]
	if len(tasks) != 23 || tasks[0].ID != "redis" || len(tasks[0].Scope) != 3 || tasks[0].Scope[2] != "cache" {
		t.Fatalf("tasks %+v", tasks)
	}
	if im := fz.Matches[contexts.Images]; len(im) != 23 || im[0].ID != "redis:7" || len(im[0].Scope) != 4 {
		t.Fatalf("images %+v", im)
	}
	if sv := fz.Matches[contexts.Services]; len(sv) != 23 || sv[0].ID != "redis-cache" {
		t.Fatalf("services %+v", sv)
	}
	fz, _, err = c.Search().FuzzySearch("SECRET", contexts.Jobs, &api.QueryOptions{Namespace: "*"})
	if err != nil || len(fz.Matches[contexts.Jobs]) != 1 || fz.Matches[contexts.Jobs][0].ID != "web-secret" ||
		fz.Matches[contexts.Jobs][0].Scope[0] != "team-b" {
		t.Fatalf("fuzzy jobs %+v: %v", fz, err)
	}
	_, _, err = c.Search().FuzzySearch("w", contexts.Jobs, nil)
	wantAPIError(t, err, http.StatusBadRequest, "at least 2 characters")

	// A token reading only the default namespace's jobs.
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "dev", Rules: `namespace "default" { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{"dev"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(tok.SecretID)
	res, _, err = c.Search().PrefixSearch("web", contexts.All, &api.QueryOptions{Namespace: "*"})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Matches[contexts.Jobs]; len(m) != 20 || slices.Contains(m, "web-secret") {
		t.Fatalf("token's jobs %v", m)
	}
	if _, ok := res.Matches[contexts.Nodes]; ok {
		t.Fatalf("a token without node read searched nodes: %+v", res.Matches)
	}
	fz, _, err = c.Search().FuzzySearch("secret", contexts.Jobs, &api.QueryOptions{Namespace: "*"})
	if err != nil || len(fz.Matches[contexts.Jobs]) != 0 {
		t.Fatalf("token's fuzzy jobs %+v: %v", fz, err)
	}
	_, _, err = c.Search().PrefixSearch("a", contexts.Nodes, nil)
	wantAPIError(t, err, http.StatusForbidden, "")
	c.SetSecretID("")
	_, _, err = c.Search().PrefixSearch("web", contexts.Jobs, nil)
	wantAPIError(t, err, http.StatusForbidden, "")
}

func jobIDs(js []*api.JobListStub) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.ID
	}
	return out
}

// pageEvals pages through /v1/evaluations 7 at a time and checks the pages
// run in create-index order (the official client sorts each page newest
// first).
func pageEvals(c *api.Client) ([]string, error) {
	var ids []string
	var lastIndex uint64
	q := &api.QueryOptions{PerPage: 7}
	for {
		page, meta, err := c.Evaluations().List(q)
		if err != nil {
			return nil, err
		}
		if len(page) > 7 {
			return nil, fmt.Errorf("a page of %d", len(page))
		}
		for _, e := range page {
			if e.CreateIndex <= lastIndex {
				return nil, fmt.Errorf("eval at index %d on a page after index %d", e.CreateIndex, lastIndex)
			}
			ids = append(ids, e.ID)
		}
		for _, e := range page {
			lastIndex = max(lastIndex, e.CreateIndex)
		}
		if meta.NextToken == "" {
			return ids, nil
		}
		q.NextToken = meta.NextToken
	}
}
