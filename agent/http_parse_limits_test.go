package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJobsParseLimits: POST /v1/jobs/parse with the hardening issue's
// inputs (80,000 nested parentheses in the job or its variables, a
// setproduct that would exhaust memory) gets a 400 naming the place, and
// the same handler keeps serving good requests.
func TestJobsParseLimits(t *testing.T) {
	s := newHTTPServer(httpDeps{RPC: newFakeRPC(), Parse: parseJob})
	body := func(hcl, vars string) string {
		b, err := json.Marshal(map[string]string{"JobHCL": hcl, "Variables": vars})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	parens := strings.Repeat("(", 80000) + "1" + strings.Repeat(")", 80000)
	deep := "job \"deep\" {\n  priority = " + parens + "\n}\n"
	good := "variable \"p\" {\n  default = 50\n}\njob \"ok\" {\n  priority = var.p\n  group \"g\" {\n    task \"t\" {\n      driver = \"exec\"\n      config {\n        command = \"/bin/true\"\n      }\n    }\n  }\n}\n"
	bomb := "locals {\n  x = length(setproduct(range(300), range(300), range(300)))\n}\n" + good

	wantStatus(t, do(t, s, "POST", "/v1/jobs/parse", body(deep, "")), 400, "input.hcl:2:269: Nesting too deep")
	wantStatus(t, do(t, s, "POST", "/v1/jobs/parse", body(good, "p = "+parens)), 400, "Nesting too deep")
	wantStatus(t, do(t, s, "POST", "/v1/jobs/parse", body(bomb, "")), 400, `input.hcl:2:14: Error in function call; Call to function "setproduct" failed: evaluation limit`)
	wantStatus(t, do(t, s, "POST", "/v1/jobs/parse", body(good, "p = 60")), 200, `"Priority":60`)
}
