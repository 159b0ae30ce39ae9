package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTemplateRawExec runs a raw_exec task with three templates on the dev
// agent: data reading the task's environment, a static file, and an
// env = true template feeding the task's environment; the task prints what
// it finds. A job whose template destination escapes the task directory
// is refused by `job run` with file:line:col, and nothing is registered.
func TestTemplateRawExec(t *testing.T) {
	id := uniqueID("e2e-tmpl")
	job := fmt.Sprintf(`job %q {
  type = "service"
  update {
    min_healthy_time = "1s"
  }
  group "g" {
    task "t" {
      driver       = "raw_exec"
      kill_timeout = "1s"
      env {
        GREETING = "hello"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "cat $NOMAD_TASK_DIR/app.conf $NOMAD_TASK_DIR/static.txt; echo mode=$APP_MODE; stat -c %%a $NOMAD_SECRETS_DIR/app.env; exec sleep 300"]
      }
      template {
        data        = <<EOH
greeting={{ env "GREETING" }} alloc={{ env "NOMAD_ALLOC_ID" }} upper={{ "x" | toUpper }}
EOH
        destination = "local/app.conf"
        change_mode = "noop"
      }
      template {
        data        = "static line\n"
        destination = "local/static.txt"
      }
      template {
        data        = "APP_MODE=prod\n"
        destination = "$${NOMAD_SECRETS_DIR}/app.env"
        env         = true
        perms       = "0600"
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
`, id)
	if r := nomadish(t, "job", "run", writeFile(t, "tmpl.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	alloc := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })[0].ID
	want := regexp.MustCompile(`greeting=hello alloc=` + alloc + ` upper=X\nstatic line\nmode=prod\n600\n`)
	eventually(t, 15*time.Second, "the rendered templates in the task's output", func() (bool, string) {
		r := nomadish(t, "alloc", "logs", alloc, "t")
		return want.MatchString(r.out), r.String()
	})

	bad := strings.Replace(job, `"local/static.txt"`, `"../../etc/x"`, 1)
	bad = strings.Replace(bad, id, id+"-bad", 1)
	r := nomadish(t, "job", "run", writeFile(t, "tmpl-bad.nomad.hcl", bad))
	if r.code == 0 || !regexp.MustCompile(`tmpl-bad\.nomad\.hcl:\d+:\d+: Invalid template destination; destination "\.\./\.\./etc/x" escapes the task directory`).MatchString(r.errOut+r.out) {
		t.Fatalf("job run with an escaping destination: %v", r)
	}
	if r := nomadish(t, "job", "status", id+"-bad"); r.code == 0 {
		t.Fatalf("the refused job exists: %v", r)
	}
	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	waitAllocs(t, id, 1, "stopped", func(a allocRow) bool { return a.ClientStatus == "complete" })
}
