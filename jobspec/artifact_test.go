package jobspec

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestParseArtifact(t *testing.T) {
	src := `job "web" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      artifact {
        source      = "https://example.com/app-${NOMAD_ALLOC_ID}.tar.gz"
        destination = "local/app"
        options {
          checksum = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        }
        headers {
          User-Agent    = "nomad-${NOMAD_JOB_ID}"
          X-Nomad-Alloc = "${NOMAD_ALLOC_ID}"
        }
        chown = true
      }
      artifact {
        source = "https://example.com/bin/tool"
        mode   = "file"
      }
      artifact {
        source      = "git::https://example.com/repo.git"
        destination = "../alloc/repo"
        options { ref = "v1.0" }
      }
    }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "a.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	job.Canonicalize()
	if err := job.Validate(); err != nil {
		t.Fatal(err)
	}
	arts := job.TaskGroups[0].Tasks[0].Artifacts
	if len(arts) != 3 {
		t.Fatalf("%d artifacts", len(arts))
	}
	a := arts[0]
	if a.GetterSource != "https://example.com/app-${NOMAD_ALLOC_ID}.tar.gz" || a.RelativeDest != "local/app" ||
		a.GetterMode != "any" || !a.Chown || a.GetterOptions["checksum"] == "" ||
		a.GetterHeaders["User-Agent"] != "nomad-${NOMAD_JOB_ID}" || a.GetterHeaders["X-Nomad-Alloc"] != "${NOMAD_ALLOC_ID}" {
		t.Errorf("artifact 1: %+v", a)
	}
	if b := arts[1]; b.GetterMode != "file" || b.RelativeDest != "local/tool" {
		t.Errorf("artifact 2 (file mode defaults to local/<basename>): %+v", b)
	}
	if c := arts[2]; c.RelativeDest != "../alloc/repo" || c.GetterOptions["ref"] != "v1.0" || c.GetterMode != "any" {
		t.Errorf("artifact 3: %+v", c)
	}
}

func TestParseArtifactDefaults(t *testing.T) {
	src := `job "web" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      artifact { source = "https://example.com/a.zip" }
    }
  }
}`
	job, err := Parse(&ParseConfig{Path: "a.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	job.Canonicalize()
	a := job.TaskGroups[0].Tasks[0].Artifacts[0]
	want := structs.TaskArtifact{GetterSource: "https://example.com/a.zip", GetterMode: "any", RelativeDest: "local/"}
	if a.GetterSource != want.GetterSource || a.GetterMode != want.GetterMode || a.RelativeDest != want.RelativeDest ||
		a.GetterOptions != nil || a.GetterHeaders != nil || a.Chown {
		t.Fatalf("got %+v, want %+v", *a, want)
	}
}

func TestParseArtifactErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`destination = "local/"`, `a.hcl:4:5: Missing source`},
		{`source = "http://x/y"` + "\n" + `mode = "tree"`, `a.hcl:6:8: Invalid artifact mode`},
		{`source = "http://x/y"` + "\n" + `destination = "../../etc"`, `a.hcl:6:15: Invalid artifact destination`},
		{`source = "http://x/y"` + "\n" + `options { checksum = "sha256:abc" }`, `a.hcl:6:22: Invalid artifact checksum`},
		{`source = "http://x/y"` + "\n" + `options { checksum = "crc32:00ff" }`, `unsupported checksum type "crc32"`},
		{`source = "http://x/y"` + "\n" + `options { checksum = "sha256" }`, `checksum must be given as "type:value"`},
		{`source = "http://x/y"` + "\n" + `sorce = "x"`, `a.hcl:6:1: Unsupported argument`},
		{`source = "http://x/y"` + "\n" + "headers {\n x {\n}\n}", `a.hcl:7:2: Unsupported block type`},
	} {
		src := "job \"web\" {\n  group \"g\" {\n    task \"t\" {\n    artifact {\n" + tc.body + "\n}\n      driver = \"raw_exec\"\n      config { command = \"/bin/true\" }\n    }\n  }\n}"
		_, err := Parse(&ParseConfig{Path: "a.hcl", Body: []byte(src)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.body, err, tc.want)
		}
	}
}

func TestArtifactValidateThroughJSON(t *testing.T) {
	// A JSON job skips the parser: Validate must refuse the same things.
	job := &structs.Job{ID: "j", TaskGroups: []*structs.TaskGroup{{Name: "g", Tasks: []*structs.Task{{
		Name: "t", Driver: "raw_exec", Artifacts: []*structs.TaskArtifact{
			{GetterSource: "http://x/y", RelativeDest: "../../etc"},
			{GetterSource: "http://x/y", GetterOptions: map[string]string{"checksum": "md5:zz"}},
			{GetterSource: "", GetterMode: "tree"},
			{GetterSource: "http://x/y", GetterOptions: map[string]string{"checksum": "${NOMAD_META_sum}"}},
		},
	}}}}}
	job.Canonicalize()
	err := job.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`group "g": task "t": artifact 1: destination "../../etc" escapes the allocation directory`,
		`artifact 2: invalid md5 checksum "zz"`,
		`artifact 3: source must be specified`,
		`artifact 3: invalid artifact mode "tree"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "artifact 4") {
		t.Errorf("an interpolated checksum is checked by the client, not here: %v", err)
	}
}
