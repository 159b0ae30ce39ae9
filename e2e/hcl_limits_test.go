package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// deepParens is the hardening issue's expression: 80,000 nested
// parentheses, which used to end the process with a Go stack overflow.
var deepParens = strings.Repeat("(", 80000) + "50" + strings.Repeat(")", 80000)

// TestHCLLimitsCLI: `job validate`, `job run` and `agent -config` refuse
// a file nesting too deeply, or calling setproduct with a huge result,
// with a non-zero exit naming file:line:col, instead of crashing.
func TestHCLLimitsCLI(t *testing.T) {
	deep := writeFile(t, "deep.nomad.hcl", "job \"e2e-deep\" {\n  priority = "+deepParens+"\n}\n")
	pos := regexp.MustCompile(`deep\.nomad\.hcl:2:\d+: Nesting too deep`)
	for _, cmd := range []string{"validate", "run"} {
		r := nomadish(t, "job", cmd, deep)
		if r.code == 0 || !pos.MatchString(r.errOut+r.out) || strings.Contains(r.errOut, "goroutine") {
			t.Errorf("job %s: %.600s", cmd, r)
		}
	}
	bomb := writeFile(t, "bomb.nomad.hcl", "locals {\n  x = length(setproduct(range(300), range(300), range(300)))\n}\n"+
		rawExecJob("e2e-bomb", "batch", "/bin/true", nil, 32))
	if r := nomadish(t, "job", "validate", bomb); r.code == 0 || !strings.Contains(r.errOut+r.out, "bomb.nomad.hcl:2:14:") ||
		!strings.Contains(r.errOut+r.out, "evaluation limit") {
		t.Errorf("job validate with setproduct: %.600s", r)
	}
	cfg := writeFile(t, "deep-agent.hcl", "datacenter = "+deepParens+"\n")
	if r := nomadish(t, "agent", "-config", cfg); r.code == 0 || !strings.Contains(r.errOut+r.out, "deep-agent.hcl:1:") ||
		!strings.Contains(r.errOut+r.out, "Nesting too deep") {
		t.Errorf("agent -config: %.600s", r)
	}
	if ids := jobIDs(t); strings.Contains(strings.Join(ids, ","), "e2e-deep") {
		t.Errorf("a refused job was registered: %v", ids)
	}
}

// TestHCLLimitsParseEndpoint: the real agent answers POST /v1/jobs/parse
// with the deep job by 400 and goes on serving.
func TestHCLLimitsParseEndpoint(t *testing.T) {
	body, _ := json.Marshal(map[string]string{"JobHCL": "job \"x\" {\n  priority = " + deepParens + "\n}\n"})
	resp, err := http.Post(dev.addr+"/v1/jobs/parse", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "Nesting too deep") {
		t.Fatalf("status %d: %.300s", resp.StatusCode, msg)
	}
	if dev.exited() {
		t.Fatal("the agent exited")
	}
	var leader string
	if err := getJSON(dev.addr+"/v1/status/leader", &leader); err != nil || leader == "" {
		t.Fatalf("status/leader after the bad parse: %q %v", leader, err)
	}
}
