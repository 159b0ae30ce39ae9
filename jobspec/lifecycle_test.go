package jobspec

import (
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestParseLifecycleRestartShutdownDelay(t *testing.T) {
	src := `job "web" {
  group "g" {
    shutdown_delay = "7s"
    restart {
      attempts = 5
      delay    = "3s"
      mode     = "delay"
    }
    task "init" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      restart {
        attempts = 1
      }
    }
    task "side" {
      driver = "raw_exec"
      lifecycle {
        hook    = "prestart"
        sidecar = true
      }
    }
    task "main" {
      driver         = "raw_exec"
      shutdown_delay = "2s"
    }
    task "after" {
      driver = "raw_exec"
      lifecycle { hook = "poststop" }
    }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "l.hcl", Body: []byte(src)})
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
	tg := job.TaskGroups[0]
	if tg.ShutdownDelay == nil || *tg.ShutdownDelay != 7*time.Second {
		t.Errorf("group shutdown_delay %v", tg.ShutdownDelay)
	}
	init, side, main, after := tg.Tasks[0], tg.Tasks[1], tg.Tasks[2], tg.Tasks[3]
	if lc := init.Lifecycle; lc == nil || lc.Hook != "prestart" || lc.Sidecar {
		t.Errorf("init lifecycle %+v", lc)
	}
	if lc := side.Lifecycle; lc == nil || lc.Hook != "prestart" || !lc.Sidecar {
		t.Errorf("side lifecycle %+v", lc)
	}
	if main.Lifecycle != nil || main.ShutdownDelay != 2*time.Second {
		t.Errorf("main %+v %v", main.Lifecycle, main.ShutdownDelay)
	}
	if lc := after.Lifecycle; lc == nil || lc.Hook != "poststop" {
		t.Errorf("after lifecycle %+v", lc)
	}
	// The task's attempts win; the rest is the group's (its own and, for
	// interval, the service default the group block left out).
	want := structs.RestartPolicy{Attempts: 1, Delay: 3 * time.Second, Mode: "delay", Interval: 30 * time.Minute}
	if got := *init.RestartPolicy; got != want {
		t.Errorf("init restart %+v, want %+v", got, want)
	}
	// A task without a restart block takes the group's.
	if got := *main.RestartPolicy; got != *tg.RestartPolicy {
		t.Errorf("main restart %+v, group %+v", got, *tg.RestartPolicy)
	}
}

func TestParseTaskRestartWithoutGroupRestart(t *testing.T) {
	src := `job "b" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      restart { mode = "delay" }
    }
  }
}`
	job, err := Parse(&ParseConfig{Path: "r.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	job.Canonicalize()
	got, def := *job.TaskGroups[0].Tasks[0].RestartPolicy, structs.DefaultBatchRestartPolicy()
	def.Mode = "delay"
	if got != *def {
		t.Errorf("restart %+v, want %+v", got, *def)
	}
}

func TestParseLifecycleErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`lifecycle { hook = "prestrat" }`, `l.hcl:4:24: Invalid lifecycle hook`},
		{`lifecycle { sidecar = true }`, `l.hcl:4:5: Missing lifecycle hook`},
		{"lifecycle {\n hook = \"prestart\"\n side = true\n }", `l.hcl:6:2: Unsupported argument`},
		{`shutdown_delay = "-1s"`, `l.hcl:4:22: Invalid shutdown_delay`},
		{`restart { mode = "never" }`, `restart mode "never"`},
		{`restart { attempts = "x" }`, `l.hcl:4:26`},
	} {
		src := "job \"web\" {\n  group \"a\" {\n    task \"t\" {\n    " + tc.body + "\n    driver = \"raw_exec\"\n    }\n  }\n}"
		job, err := Parse(&ParseConfig{Path: "l.hcl", Body: []byte(src)})
		if err == nil {
			job.Canonicalize()
			err = job.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.body, err, tc.want)
		}
	}
}

func TestGroupShutdownDelayNegative(t *testing.T) {
	src := "job \"web\" {\n  group \"a\" {\n    shutdown_delay = \"-3s\"\n    task \"t\" { driver = \"raw_exec\" }\n  }\n}"
	_, err := Parse(&ParseConfig{Path: "g.hcl", Body: []byte(src)})
	if err == nil || !strings.Contains(err.Error(), "g.hcl:3:22: Invalid shutdown_delay") {
		t.Fatalf("got %v", err)
	}
}
