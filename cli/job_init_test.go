package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/jobcheck"
	"github.com/nomadish/nomadish/jobspec"
)

func TestJobInitExamplesParseAndValidate(t *testing.T) {
	for _, flags := range [][]string{nil, {"-short"}, {"-connect"}, {"-connect", "-short"}} {
		t.Run(strings.Join(append([]string{"init"}, flags...), " "), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "job.nomad.hcl")
			code, out, errOut := runCLI(nil, append(append([]string{"job", "init"}, flags...), file)...)
			if code != 0 || !strings.Contains(out, "Example job file written to "+file) {
				t.Fatalf("exit %d: %s %s", code, out, errOut)
			}
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			job, err := jobspec.Parse(&jobspec.ParseConfig{Path: file, Body: body, Drivers: catalog.Builtin})
			if err != nil {
				t.Fatalf("parse: %v\n%s", err, body)
			}
			if err := jobcheck.Check(job, catalog.Builtin); err != nil {
				t.Fatalf("validate: %v", err)
			}
			if len(job.TaskGroups) == 0 || len(job.TaskGroups[0].Tasks) == 0 {
				t.Fatalf("job has no task: %+v", job)
			}
			// job validate on the file agrees.
			if code, _, errOut := runCLI(nil, "job", "validate", file); code != 0 {
				t.Fatalf("job validate: exit %d: %s", code, errOut)
			}
		})
	}
}

func TestJobInitShortHasNoComments(t *testing.T) {
	if strings.Contains(exampleJobShort, "#") || strings.Contains(exampleConnectJobShort, "#") {
		t.Fatal("short examples have comments")
	}
	if !strings.Contains(exampleJob, "#") {
		t.Fatal("the full example has no comments")
	}
}

func TestJobInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if code, _, errOut := runCLI(nil, "job", "init"); code != 0 {
		t.Fatalf("first init: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, defaultInitName)); err != nil {
		t.Fatalf("default file not written: %v", err)
	}
	if err := os.WriteFile(defaultInitName, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(nil, "job", "init")
	if code != 1 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("second init: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(defaultInitName); string(b) != "mine" {
		t.Fatalf("file overwritten: %q", b)
	}
}
