package jobspec

import (
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestParseDisconnect(t *testing.T) {
	src := `job "web" {
  group "new" {
    disconnect {
      lost_after = "5m"
      reconcile  = "keep_replacement"
      replace    = false
    }
    task "t" { driver = "raw_exec" }
  }
  group "old" {
    max_client_disconnect = "90s"
    task "t" { driver = "raw_exec" }
  }
  group "none" {
    task "t" { driver = "raw_exec" }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "d.hcl", Body: []byte(src)})
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
	cases := []struct {
		tg        *structs.TaskGroup
		lostAfter time.Duration
		replace   bool
		reconcile string
	}{
		{job.TaskGroups[0], 5 * time.Minute, false, structs.ReconcileKeepReplacement},
		{job.TaskGroups[1], 90 * time.Second, true, structs.ReconcileBestScore},
		{job.TaskGroups[2], 0, true, structs.ReconcileBestScore},
	}
	for _, c := range cases {
		if got := c.tg.LostAfter(); got != c.lostAfter {
			t.Errorf("group %s: lost after %v, want %v", c.tg.Name, got, c.lostAfter)
		}
		if got := c.tg.ReplaceOnDisconnect(); got != c.replace {
			t.Errorf("group %s: replace %v, want %v", c.tg.Name, got, c.replace)
		}
		if got := c.tg.ReconcileStrategy(); got != c.reconcile {
			t.Errorf("group %s: reconcile %q, want %q", c.tg.Name, got, c.reconcile)
		}
	}
}

func TestParseDisconnectErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`disconnect { lost_after = "-1s" }`, `d.hcl:3:31: Invalid lost_after`},
		{`disconnect { reconcile = "newest" }`, `d.hcl:3:30: Invalid reconcile`},
		{`disconnect { stop_after = "1m" }`, `d.hcl:3:18: Unsupported argument`},
		{`max_client_disconnect = "-5m"`, `d.hcl:3:29: Invalid max_client_disconnect`},
		{"max_client_disconnect = \"5m\"\n    disconnect { lost_after = \"1m\" }", `d.hcl:3:5: Conflicting arguments`},
	} {
		src := "job \"web\" {\n  group \"a\" {\n    " + tc.body + "\n    task \"t\" { driver = \"raw_exec\" }\n  }\n}"
		_, err := Parse(&ParseConfig{Path: "d.hcl", Body: []byte(src)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.body, err, tc.want)
		}
	}
}
