package agent

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestAPIJobSubmission drives GET /v1/job/<id>/submission with the official
// client: the source sent with a registration is kept for its version with
// its variables; a version registered without one, an oversized source
// (dropped with a warning), another namespace and a purged job are 404s; a
// missing version is a 400; reading needs read-job; a revert keeps the
// reverted-to version's source.
func TestAPIJobSubmission(t *testing.T) {
	_, anon := aclAgent(t)
	root, _, err := anon.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := api.NewClient(&api.Config{Address: anon.Address(), SecretID: root.SecretID})
	jobs := c.Jobs()
	src := "# submitted source\njob \"sub\" {\n  group \"web\" { count = var.n }\n}\n"
	sub := &api.JobSubmission{Source: src, Format: "hcl2", VariableFlags: map[string]string{"n": "1"}, Variables: "n = 1\n"}
	if _, _, err := jobs.RegisterOpts(aclTestJob("sub", "default"), &api.RegisterOptions{Submission: sub}, nil); err != nil {
		t.Fatal(err)
	}
	got, qm, err := jobs.Submission("sub", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != src || got.Format != "hcl2" || got.VariableFlags["n"] != "1" || got.Variables != "n = 1\n" || qm.LastIndex == 0 {
		t.Fatalf("submission %+v (index %d)", got, qm.LastIndex)
	}

	// Version 1 without a source: none for it, version 0's is still there.
	v1 := aclTestJob("sub", "default")
	v1.TaskGroups[0].Count = new(2)
	if _, _, err := jobs.Register(v1, nil); err != nil {
		t.Fatal(err)
	}
	_, _, err = jobs.Submission("sub", 1, nil)
	wantAPIError(t, err, 404, "job source not found")
	if got, _, err := jobs.Submission("sub", 0, nil); err != nil || got.Source != src {
		t.Fatalf("version 0 after version 1: %+v %v", got, err)
	}

	// Over the size limit (1 MB): registered, with a warning, no source.
	big := &api.JobSubmission{Source: "#" + strings.Repeat("x", 1<<20), Format: "hcl2"}
	v2 := aclTestJob("sub", "default")
	v2.TaskGroups[0].Count = new(3)
	resp, _, err := jobs.RegisterOpts(v2, &api.RegisterOptions{Submission: big}, nil)
	if err != nil || !strings.Contains(resp.Warnings, "exceeds maximum") {
		t.Fatalf("oversized source: %+v %v", resp, err)
	}
	_, _, err = jobs.Submission("sub", 2, nil)
	wantAPIError(t, err, 404, "job source not found")

	// Namespaced: the job is in default, not in another namespace.
	_, _, err = jobs.Submission("sub", 0, &api.QueryOptions{Namespace: "other"})
	wantAPIError(t, err, 404, "")

	// The version is required.
	req, _ := http.NewRequest("GET", anon.Address()+"/v1/job/sub/submission", nil)
	req.Header.Set("X-Nomad-Token", root.SecretID)
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 400 {
		t.Fatalf("no version: %v %v", r, err)
	} else {
		r.Body.Close()
	}

	// ACL: anonymous is refused; a read token reads.
	_, _, err = anon.Jobs().Submission("sub", 0, nil)
	wantAPIError(t, err, 403, "Permission denied")
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "reader", Rules: `namespace "default" { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: "r", Type: "client", Policies: []string{"reader"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reader, _ := api.NewClient(&api.Config{Address: anon.Address(), SecretID: tok.SecretID})
	if got, _, err := reader.Jobs().Submission("sub", 0, nil); err != nil || got.Source != src {
		t.Fatalf("read token: %+v %v", got, err)
	}

	// A revert to version 0 makes version 3 with version 0's source.
	if _, _, err := jobs.Revert("sub", 0, nil, nil, "", ""); err != nil {
		t.Fatal(err)
	}
	if got, _, err := jobs.Submission("sub", 3, nil); err != nil || got.Source != src || got.VariableFlags["n"] != "1" {
		t.Fatalf("reverted version's source: %+v %v", got, err)
	}

	// Purged with the job.
	if _, _, err := jobs.Deregister("sub", true, nil); err != nil {
		t.Fatal(err)
	}
	_, _, err = jobs.Submission("sub", 0, nil)
	wantAPIError(t, err, 404, "job source not found")
}
