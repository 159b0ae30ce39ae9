package cli

import (
	"net/url"
	"strings"
	"testing"
)

// The paging flags are passed through as Nomad's query parameters and the
// X-Nomad-NextToken header becomes the "Next page token" footer.
func TestListPagingFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		key  string
	}{
		{[]string{"job", "status"}, "GET /v1/jobs"},
		{[]string{"node", "status"}, "GET /v1/nodes"},
		{[]string{"deployment", "list"}, "GET /v1/deployments"},
		{[]string{"eval", "list"}, "GET /v1/evaluations"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			c := readAPI(t)
			c.headers["X-Nomad-NextToken"] = "tok-2"
			args := append(tc.args, "-filter", `Status == "running"`, "-per-page", "5", "-page-token", "tok-1")
			code, out, errOut := c.run(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			qs := c.query(tc.key)
			if len(qs) != 1 {
				t.Fatalf("queries %v", qs)
			}
			q, _ := url.ParseQuery(qs[0])
			if q.Get("filter") != `Status == "running"` || q.Get("per_page") != "5" || q.Get("next_token") != "tok-1" {
				t.Fatalf("query %v", q)
			}
			if !strings.HasSuffix(out, "\nNext page token: tok-2\n") {
				t.Fatalf("no footer in:\n%s", out)
			}
		})
	}
}

func TestListNoFooterOnLastPage(t *testing.T) {
	c := readAPI(t)
	code, out, _ := c.run("job", "status")
	if code != 0 || strings.Contains(out, "Next page token") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if q := c.query("GET /v1/jobs"); len(q) != 1 || q[0] != "" {
		t.Fatalf("paging parameters sent unasked: %v", q)
	}
}

func TestEvalListJobAndStatus(t *testing.T) {
	c := readAPI(t)
	code, out, errOut := c.run("eval", "list", "-job", "web", "-status", "complete")
	if code != 0 || !strings.Contains(out, "job-register") || !strings.Contains(out, "Placement Failures") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	q, _ := url.ParseQuery(c.query("GET /v1/evaluations")[0])
	if q.Get("job") != "web" || q.Get("status") != "complete" {
		t.Fatalf("query %v", q)
	}
	code, out, _ = c.run("eval", "list", "-status", "pending")
	if code != 0 || !strings.Contains(out, "No evals found") {
		t.Fatalf("exit %d: %s", code, out)
	}
}

func TestJobAllocsAndDeployments(t *testing.T) {
	c := readAPI(t)
	code, out, errOut := c.run("job", "allocs", "-all", "web")
	if code != 0 || !strings.Contains(out, shortID(allocID, false)) {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if q := c.query("GET /v1/job/web/allocations"); len(q) != 1 || q[0] != "all=true" {
		t.Fatalf("queries %v", q)
	}
	code, out, _ = c.run("job", "deployments", "web")
	if code != 0 || !strings.Contains(out, "successful") {
		t.Fatalf("exit %d: %s", code, out)
	}
	code, out, _ = c.run("job", "deployments", "-latest", "-json", "web")
	if code != 0 || !strings.Contains(out, `"JobVersion": 3`) {
		t.Fatalf("exit %d: %s", code, out)
	}
}
