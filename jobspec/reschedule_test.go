package jobspec

import (
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestParseRescheduleMerge(t *testing.T) {
	src := `job "web" {
  reschedule {
    attempts  = 3
    interval  = "1h"
    delay     = "10s"
    unlimited = false
  }
  group "a" {
    reschedule {
      attempts       = 5
      delay_function = "fibonacci"
      max_delay      = "5m"
    }
    task "t" { driver = "raw_exec" }
  }
  group "b" {
    task "t" { driver = "raw_exec" }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "r.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	// Service defaults, then the job's fields, then the group's.
	jobLevel := structs.ReschedulePolicy{Attempts: 3, Interval: time.Hour, Delay: 10 * time.Second,
		DelayFunction: "exponential", MaxDelay: time.Hour}
	if job.Reschedule == nil || *job.Reschedule != jobLevel {
		t.Errorf("job reschedule = %+v, want %+v", job.Reschedule, jobLevel)
	}
	a := structs.ReschedulePolicy{Attempts: 5, Interval: time.Hour, Delay: 10 * time.Second,
		DelayFunction: "fibonacci", MaxDelay: 5 * time.Minute}
	if got := job.TaskGroups[0].ReschedulePolicy; got == nil || *got != a {
		t.Errorf("group a = %+v, want %+v", got, a)
	}
	if got := job.TaskGroups[1].ReschedulePolicy; got == nil || *got != jobLevel || got == job.Reschedule {
		t.Errorf("group b = %+v, want a copy of %+v", got, jobLevel)
	}
	job.Canonicalize()
	if err := job.Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
}

func TestParseReschedulePartialGetsTypeDefaults(t *testing.T) {
	src := `job "b" {
  type = "batch"
  group "g" {
    reschedule {
      attempts = 0
    }
    task "t" { driver = "raw_exec" }
  }
  group "none" {
    task "t" { driver = "raw_exec" }
  }
}`
	job, err := Parse(&ParseConfig{Path: "b.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	want := *structs.DefaultBatchReschedulePolicy()
	want.Attempts = 0
	if got := job.TaskGroups[0].ReschedulePolicy; got == nil || *got != want {
		t.Errorf("reschedule = %+v, want %+v", got, want)
	}
	if job.Reschedule != nil || job.TaskGroups[1].ReschedulePolicy != nil {
		t.Errorf("no blocks: want nil policies, got %+v %+v", job.Reschedule, job.TaskGroups[1].ReschedulePolicy)
	}
	job.Canonicalize()
	if got := job.TaskGroups[1].ReschedulePolicy; got == nil || *got != *structs.DefaultBatchReschedulePolicy() {
		t.Errorf("canonicalized = %+v", got)
	}
}

func TestParseRescheduleErrors(t *testing.T) {
	group := func(body string) string {
		return "job \"a\" {\n group \"g\" {\n  reschedule {\n" + body + "\n  }\n  task \"t\" { driver = \"x\" }\n }\n}"
	}
	for _, tc := range []struct{ name, src, want string }{
		{"bad delay_function", group(`   delay_function = "linear"`),
			`bad.hcl:4:21: Invalid delay_function; The delay_function "linear" is not one of "constant", "exponential" or "fibonacci".`},
		{"negative attempts", group(`   attempts = -1`),
			`bad.hcl:4:15: Invalid attempts; attempts can't be negative (got -1).`},
		{"bad duration", group(`   interval = "daily"`),
			`bad.hcl:4:15: Invalid duration; The value "daily" of "interval" is not a duration`},
		{"wrong type", group(`   unlimited = "yes please"`),
			`bad.hcl:4:16: Incorrect attribute value type; Inappropriate value for attribute "unlimited"`},
		{"max_delay below delay", group("   delay = \"1m\"\n   max_delay = \"30s\""),
			`bad.hcl:5:16: Invalid max_delay; max_delay 30s is less than delay 1m0s; a exponential delay grows`},
		{"delay too short", group(`   delay = "100ms"`),
			`bad.hcl:4:12: Invalid delay; delay 100ms is less than the minimum 1s.`},
		{"attempts and unlimited", group("   attempts = 2\n   interval = \"1h\"\n   unlimited = true"),
			`bad.hcl:6:16: Ambiguous reschedule policy; attempts = 2 with unlimited = true is ambiguous`},
		{"unknown attribute", group(`   tries = 2`),
			`bad.hcl:4:4: Unsupported argument; An argument named "tries" is not expected in a reschedule block.`},
		{"job block inherited, reported once", "job \"a\" {\n reschedule { delay = \"10ms\" }\n group \"g\" {\n  reschedule { attempts = 0 }\n  task \"t\" { driver = \"x\" }\n }\n group \"h\" {\n  task \"t\" { driver = \"x\" }\n }\n}",
			`bad.hcl:2:23: Invalid delay; delay 10ms is less than the minimum 1s.`},
		{"system job", "job \"a\" {\n type = \"system\"\n group \"g\" {\n  reschedule {}\n  task \"t\" { driver = \"x\" }\n }\n}",
			`bad.hcl:4:3: Reschedule not allowed; system jobs are never rescheduled; remove this reschedule block.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(&ParseConfig{Path: "bad.hcl", Body: []byte(tc.src)})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("error:\n%s\nwant a line with:\n%s", msg, tc.want)
			}
			if n := strings.Count(msg, "\n") + 1; tc.name == "job block inherited, reported once" && n != 1 {
				t.Errorf("want one error, got %d:\n%s", n, msg)
			}
		})
	}
}
