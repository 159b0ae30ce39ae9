package agent

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// driverJobJSON is a job body whose one task has the given driver and
// config (JSON).
func driverJobJSON(id, driver, config string) string {
	return `{"Job":{"ID":"` + id + `","Type":"batch","Datacenters":["dc1"],"TaskGroups":[{"Name":"g","Count":1,` +
		`"Tasks":[{"Name":"t","Driver":"` + driver + `","Config":` + config + `,"Resources":{"CPU":100,"MemoryMB":64}}]}]}}`
}

// TestHTTPJobsCheckedByTheServer: the HTTP layer leaves validation to the
// server's one jobcheck.Prepare, which refuses (400, the message, nothing
// stored) an invalid job (the case TestJobsRegisterBadInputChangesNothing
// asserted of the HTTP layer alone), an unknown driver and an unknown or
// mistyped driver config key in a JSON job, on register and on plan; the
// parse endpoint refuses the same HCL at file:line:col.
func TestHTTPJobsCheckedByTheServer(t *testing.T) {
	base := boundsAgent(t, 100)
	for _, c := range []struct{ name, path, body, want string }{
		{"invalid", "/v1/jobs", `{"Job": {"ID": "x", "Priority": 500}}`, "missing job task groups"},
		{"unknown driver", "/v1/jobs", driverJobJSON("d", "raw_exce", `{"command":"/bin/true"}`),
			`group "g": task "t": unknown driver "raw_exce"; Did you mean "raw_exec"?`},
		{"unknown key", "/v1/jobs", driverJobJSON("k", "raw_exec", `{"comand":"/bin/true"}`),
			`group "g": task "t": config: unknown key "comand"; Did you mean "command"?`},
		{"wrong type", "/v1/job/w", driverJobJSON("w", "docker", `{"image":"busybox","args":"-x"}`),
			`group "g": task "t": config: key "args" must be a list of strings; got a string`},
		{"plan", "/v1/job/k/plan", driverJobJSON("k", "raw_exec", `{"comand":"/bin/true"}`), `config: unknown key "comand"`},
	} {
		if code, body := httpDo(t, "PUT", base+c.path, c.body); code != http.StatusBadRequest || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %s, want 400 containing %q", c.name, code, body, c.want)
		}
	}
	if code, body := httpDo(t, "GET", base+"/v1/jobs", ""); code != 200 || strings.TrimSpace(body) != "[]" {
		t.Fatalf("jobs after refused registrations: %d %s", code, body)
	}
	if code, body := httpDo(t, "PUT", base+"/v1/jobs", driverJobJSON("ok", "raw_exec", `{"command":"/bin/true","args":["-x",1]}`)); code != 200 {
		t.Fatalf("a good job: %d %s", code, body)
	}

	hcl := "job \"p\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      config {\n        comand = \"/bin/true\"\n      }\n    }\n  }\n}\n"
	b, _ := json.Marshal(map[string]string{"JobHCL": hcl})
	code, body := httpDo(t, "PUT", base+"/v1/jobs/parse", string(b))
	if code != http.StatusBadRequest || !strings.Contains(body, `input.hcl:6:9: unknown key "comand" in config of driver "raw_exec"; Did you mean "command"?`) {
		t.Fatalf("parse: %d %s", code, body)
	}
}
