package jobspec

import (
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestParseUpdate(t *testing.T) {
	src := `job "web" {
  update {
    max_parallel     = 2
    min_healthy_time = "1s"
    auto_revert      = true
  }
  group "a" {
    update {
      canary       = 1
      auto_promote = true
      health_check = "task_states"
    }
    task "t" { driver = "raw_exec" }
  }
  group "b" {
    task "t" { driver = "raw_exec" }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "u.hcl", Body: []byte(src)})
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
	base := structs.DefaultUpdateStrategy()
	base.MaxParallel, base.MinHealthyTime, base.AutoRevert = 2, time.Second, true
	wantA := *base
	wantA.Canary, wantA.AutoPromote, wantA.HealthCheck = 1, true, "task_states"
	if a, b := *job.TaskGroups[0].Update, *job.TaskGroups[1].Update; a != wantA || b != *base {
		t.Fatalf("group a %+v (want %+v)\ngroup b %+v (want %+v)", a, wantA, b, *base)
	}
}

func TestParseNoUpdateGetsDefault(t *testing.T) {
	job, err := Parse(&ParseConfig{Path: "u.hcl", Body: []byte("job \"w\" {\n  group \"a\" {\n    task \"t\" { driver = \"raw_exec\" }\n  }\n}")})
	if err != nil {
		t.Fatal(err)
	}
	job.Canonicalize()
	if got := job.TaskGroups[0].Update; got == nil || *got != *structs.DefaultUpdateStrategy() {
		t.Fatalf("update %+v, want the default", got)
	}
}

func TestParseUpdateErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`max_parallel = -1`, `u.hcl:2:27: Invalid max_parallel`},
		{`health_check = "http"`, `u.hcl:2:27: Invalid health_check`},
		{`min_healthy_time = "-1s"`, `u.hcl:2:31: Invalid min_healthy_time`},
	} {
		src := "job \"web\" {\n  update { " + tc.body + " }\n  group \"a\" {\n    task \"t\" { driver = \"raw_exec\" }\n  }\n}"
		_, err := Parse(&ParseConfig{Path: "u.hcl", Body: []byte(src)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.body, err, tc.want)
		}
	}
}
