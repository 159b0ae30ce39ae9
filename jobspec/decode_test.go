package jobspec

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestDurations(t *testing.T) {
	for _, tc := range []struct {
		expr    string
		want    time.Duration
		wantErr string
	}{
		{`"30s"`, 30 * time.Second, ""},
		{`"5m"`, 5 * time.Minute, ""},
		{`"1h30m"`, 90 * time.Minute, ""},
		{`"250ms"`, 250 * time.Millisecond, ""},
		{`format("%ds", 2 * 5)`, 10 * time.Second, ""},
		{`"5"`, 0, `d.hcl:4:19: Invalid duration; The value "5" of "kill_timeout" is not a duration`},
		{`5`, 0, `d.hcl:4:19: Invalid duration; The value "5" of "kill_timeout" is not a duration`},
		{`"-"`, 0, `d.hcl:4:19: Invalid duration`},
		{`["5s"]`, 0, `d.hcl:4:19: Incorrect attribute value type; Inappropriate value for attribute "kill_timeout": string required.`},
	} {
		src := fmt.Sprintf("job \"a\" {\n group \"g\" {\n  task \"t\" {\n   kill_timeout = %s\n  }\n }\n}", tc.expr)
		job, err := Parse(&ParseConfig{Path: "d.hcl", Body: []byte(src)})
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want %q", tc.expr, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got := job.TaskGroups[0].Tasks[0].KillTimeout; got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.expr, got, tc.want)
		}
	}
}

func TestConfigNumbers(t *testing.T) {
	src := `job "a" {
  group "g" {
    task "t" {
      config {
        i     = 3
        neg   = -2
        big   = 9007199254740993
        f     = 0.25
        exp   = 1e3
        huge  = 1e30
        list  = [1, "a", true, 1.5]
        set   = toset(["x"])
        nul   = null
        obj   = { k = [{ n = 1 }] }
      }
    }
  }
}`
	job, err := Parse(&ParseConfig{Path: "c.hcl", Body: []byte(strings.Replace(src, "toset([\"x\"])", "distinct([\"x\", \"x\"])", 1))})
	if err != nil {
		t.Fatal(err)
	}
	cfg := job.TaskGroups[0].Tasks[0].Config
	want := map[string]any{
		"i": int64(3), "neg": int64(-2), "big": int64(9007199254740993), "f": 0.25, "exp": int64(1000),
		"huge": 1e30, "list": []any{int64(1), "a", true, 1.5}, "set": []any{"x"}, "nul": nil,
		"obj": map[string]any{"k": []any{map[string]any{"n": int64(1)}}},
	}
	for k, w := range want {
		if got := cfg[k]; fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", w) {
			t.Errorf("%s = %#v, want %#v", k, got, w)
		}
	}
	if len(cfg) != len(want) {
		t.Errorf("config has %d keys, want %d: %v", len(cfg), len(want), cfg)
	}
}
