package jobspec

import (
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestParseMigrate(t *testing.T) {
	src := `job "web" {
  migrate {
    max_parallel     = 2
    min_healthy_time = "30s"
  }
  group "a" {
    migrate {
      health_check     = "task_states"
      healthy_deadline = "1m"
    }
    task "t" { driver = "raw_exec" }
  }
  group "b" {
    task "t" { driver = "raw_exec" }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "m.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	job.Canonicalize()
	a, b := job.TaskGroups[0].Migrate, job.TaskGroups[1].Migrate
	wantA := structs.MigrateStrategy{MaxParallel: 2, HealthCheck: "task_states", MinHealthyTime: 30 * time.Second, HealthyDeadline: time.Minute}
	wantB := structs.MigrateStrategy{MaxParallel: 2, HealthCheck: "checks", MinHealthyTime: 30 * time.Second, HealthyDeadline: 5 * time.Minute}
	if *a != wantA || *b != wantB {
		t.Fatalf("group a %+v (want %+v), group b %+v (want %+v)", *a, wantA, *b, wantB)
	}
}

func TestParseMigrateErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`max_parallel = -1`, `m.hcl:2:28: Invalid max_parallel`},
		{`health_check = "http"`, `m.hcl:2:28: Invalid health_check`},
		{`min_healthy_time = "-1s"`, `m.hcl:2:32: Invalid min_healthy_time`},
	} {
		src := "job \"web\" {\n  migrate { " + tc.body + " }\n  group \"a\" {\n    task \"t\" { driver = \"raw_exec\" }\n  }\n}"
		_, err := Parse(&ParseConfig{Path: "m.hcl", Body: []byte(src)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.body, err, tc.want)
		}
	}
}
