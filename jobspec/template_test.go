package jobspec

import (
	"strings"
	"testing"
	"time"
)

func TestParseTemplate(t *testing.T) {
	src := `job "web" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      template {
        data        = <<EOH
id={{ env "NOMAD_ALLOC_ID" }} {{ with nomadVar "nomad/jobs/web" }}{{ .password }}{{ end }}
EOH
        destination = "local/app.conf"
        change_mode = "signal"
        change_signal = "sighup"
        perms = "0600"
        uid = 1000
        splay = "1s"
        wait {
          min = "2s"
          max = "10s"
        }
      }
      template {
        source          = "local/in.tpl"
        destination     = "${NOMAD_SECRETS_DIR}/env"
        left_delimiter  = "[["
        right_delimiter = "]]"
        error_on_missing_key = true
        change_mode = "script"
        change_script {
          command = "/bin/reload"
          args    = ["-v"]
          fail_on_error = true
        }
      }
      template {
        data        = "A=1"
        destination = "local/a.env"
        env         = true
      }
    }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "t.hcl", Body: []byte(src)})
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
	ts := job.TaskGroups[0].Tasks[0].Templates
	if len(ts) != 3 {
		t.Fatalf("templates = %d", len(ts))
	}
	a, b := ts[0], ts[1]
	if !ts[2].Envvars || b.Envvars {
		t.Errorf("env = %v, %v", b.Envvars, ts[2].Envvars)
	}
	if !strings.HasPrefix(a.EmbeddedTmpl, "id={{ env") || a.DestPath != "local/app.conf" || a.ChangeMode != "signal" ||
		a.ChangeSignal != "SIGHUP" || a.Perms != "0600" || a.Uid == nil || *a.Uid != 1000 || a.Gid != nil ||
		a.Splay != time.Second || *a.Wait.Min != 2*time.Second || *a.Wait.Max != 10*time.Second {
		t.Errorf("first template: %s", fmtAny(a))
	}
	if b.SourcePath != "local/in.tpl" || b.DestPath != "${NOMAD_SECRETS_DIR}/env" || b.LeftDelim != "[[" ||
		b.RightDelim != "]]" || !b.ErrMissingKey || b.ChangeScript == nil || b.ChangeScript.Command != "/bin/reload" ||
		b.ChangeScript.Args[0] != "-v" || !b.ChangeScript.FailOnError || b.ChangeScript.Timeout != 5*time.Second ||
		b.Splay != 5*time.Second || b.Perms != "0644" {
		t.Errorf("second template: %s", fmtAny(b))
	}
}

func TestParseTemplateErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`data = "x"
        destination = "../../etc/x"`, `t.hcl:7:23: Invalid template destination; destination "../../etc/x" escapes the task directory`},
		{`data = "x"
        destination = "/etc/x"`, `t.hcl:7:23: Invalid template destination; destination "/etc/x" is an absolute path outside the task directory`},
		{`source = "../../../etc/passwd"
        destination = "local/x"`, `t.hcl:6:16: Invalid template source`},
		{`data = "x"`, `t.hcl:5:7: Missing template destination`},
		{`destination = "local/x"`, `t.hcl:5:7: Missing template data`},
		{`data = "x"
        source = "local/y"
        destination = "local/x"`, `t.hcl:7:9: Conflicting arguments`},
		{`data = "x"
        destination = "local/x"
        change_mode = "reload"`, `t.hcl:8:23: Invalid change_mode`},
		{`data = "x"
        destination = "local/x"
        change_mode = "signal"`, `t.hcl:8:23: Missing change_signal`},
		{`data = "x"
        destination = "local/x"
        change_mode = "script"`, `t.hcl:8:23: Missing change_script`},
		{`data = "x"
        destination = "local/x"
        perms = "rw-r--r--"`, `t.hcl:8:17: Invalid perms`},
		{`data = "{{ env \"X\" "
        destination = "local/x"`, `t.hcl:6:14: Invalid template; The template does not parse`},
		{`data = "{{ bogusFunc }}"
        destination = "local/x"`, `function "bogusFunc" not defined`},
		{`data = "x"
        destination = "local/x"
        wait {
          min = "5s"
          max = "1s"
        }`, `t.hcl:10:17: Invalid wait`},
		{`data = "x"
        destination = "local/x"
        splat = "1s"`, `t.hcl:8:9: Unsupported argument`},
	} {
		src := "job \"web\" {\n  group \"a\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      template {\n      " + tc.body + "\n      }\n    }\n  }\n}"
		_, err := Parse(&ParseConfig{Path: "t.hcl", Body: []byte(src)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.body, err, tc.want)
		}
	}
}
