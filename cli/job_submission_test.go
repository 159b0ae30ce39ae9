package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestJobRunSendsSubmission: `job run` sends the file's text with the job,
// as Nomad's does: format hcl2, the -var flags and the var-files' text.
func TestJobRunSendsSubmission(t *testing.T) {
	f := newFakeAPI(t)
	f.registerEval = evalID
	varFile := filepath.Join(t.TempDir(), "vars.hcl")
	if err := os.WriteFile(varFile, []byte("word = \"from-file\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := f.run("job", "run", "-detach", "-var", "word=flag=ok", "-var-file", varFile, writeJob(t, goodJob))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if len(f.bodies) == 0 {
		t.Fatal("nothing sent")
	}
	var body struct {
		Job        *structs.Job
		Submission *structs.JobSubmission
	}
	if err := json.Unmarshal([]byte(f.bodies[0]), &body); err != nil {
		t.Fatal(err)
	}
	sub := body.Submission
	if sub == nil || sub.Source != goodJob || sub.Format != "hcl2" {
		t.Fatalf("submission %+v, want the file's text as hcl2", sub)
	}
	if sub.VariableFlags["word"] != "flag=ok" || sub.Variables != "word = \"from-file\"\n" {
		t.Errorf("variables %v %q", sub.VariableFlags, sub.Variables)
	}
}
