package e2e

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestDriverConfigRefusedAtSubmission: the two files, a misspelled
// driver and a misspelled driver config key, are refused by `job
// validate`, `job plan` and `job run` with file:line:col before anything is
// sent; the same job as JSON over the HTTP API is refused by the server;
// nothing is stored.
func TestDriverConfigRefusedAtSubmission(t *testing.T) {
	good := rawExecJob("e2e-schema", "batch", "/bin/true", []string{"-x"}, 32)
	files := map[string]struct{ body, want string }{
		"driver": {strings.Replace(good, `driver = "raw_exec"`, `driver = "raw_exce"`, 1),
			`driver\.nomad\.hcl:5:16: unknown driver "raw_exce"; Did you mean "raw_exec"\?`},
		"key": {strings.Replace(good, "command =", "comand =", 1),
			`key\.nomad\.hcl:8:9: unknown key "comand" in config of driver "raw_exec"; Did you mean "command"\?`},
	}
	for name, f := range files {
		path := writeFile(t, name+".nomad.hcl", f.body)
		want := regexp.MustCompile(f.want)
		for _, cmd := range []struct {
			args []string
			code int
		}{{[]string{"job", "validate"}, 1}, {[]string{"job", "run"}, 1}, {[]string{"job", "plan"}, 255}} {
			r := nomadish(t, append(cmd.args, path)...)
			if r.code != cmd.code || !want.MatchString(r.errOut) {
				t.Errorf("%s: %v: %v; want exit %d and %s", name, cmd.args, r, cmd.code, f.want)
			}
		}
	}
	if r := nomadish(t, "job", "validate", writeFile(t, "good.nomad.hcl", good)); r.code != 0 || !strings.Contains(r.out, "Job validation successful") {
		t.Errorf("job validate of the good file: %v", r)
	}

	body := `{"Job":{"ID":"e2e-schema","Type":"batch","TaskGroups":[{"Name":"g","Tasks":[{"Name":"t","Driver":"raw_exec","Config":{"comand":"/bin/true"}}]}]}}`
	req, _ := http.NewRequest(http.MethodPut, dev.addr+"/v1/jobs", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("PUT /v1/jobs with config key comand: status %d, want 400", resp.StatusCode)
	}
	if r := nomadish(t, "job", "status", "e2e-schema"); r.code != 1 || !strings.Contains(r.errOut, "no job(s)") {
		t.Errorf("job status of the refused job: %v", r)
	}
}
