package jobspec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// Nomad's own fixtures with periodic, parameterized, scaling and a task
// directly in a job parse to the same values as Nomad's parser, without
// warnings, and validate.
func TestParseNomadFixturesPeriodicParameterizedScaling(t *testing.T) {
	parse := func(t *testing.T, file string) *structs.Job {
		t.Helper()
		job, warnings, err := ParseWithWarnings(&ParseConfig{Path: file})
		if err != nil {
			t.Fatalf("parse %s: %v", file, err)
		}
		if len(warnings) > 0 {
			t.Fatalf("warnings: %q", warnings)
		}
		cp := job.Copy()
		cp.Canonicalize()
		if err := cp.Validate(); err != nil {
			t.Fatalf("validate: %v", err)
		}
		return job
	}
	t.Run("periodic-crons", func(t *testing.T) {
		j := parse(t, "testdata/periodic-crons.nomad.hcl")
		want := &structs.PeriodicConfig{Enabled: true, SpecType: "cron", Specs: []string{"*/5 * * * *", "*/7 * * * *"},
			ProhibitOverlap: true, TimeZone: "Europe/Minsk"}
		if !reflect.DeepEqual(j.Periodic, want) {
			t.Errorf("periodic = %+v, want %+v", j.Periodic, want)
		}
	})
	t.Run("parameterized", func(t *testing.T) {
		j := parse(t, "testdata/parameterized_job.nomad.hcl")
		want := &structs.ParameterizedJobConfig{Payload: "required", MetaRequired: []string{"foo", "bar"}, MetaOptional: []string{"baz", "bam"}}
		if !reflect.DeepEqual(j.ParameterizedJob, want) {
			t.Errorf("parameterized = %+v", j.ParameterizedJob)
		}
		if dp := j.TaskGroups[0].Tasks[0].DispatchPayload; dp == nil || dp.File != "foo/bar" {
			t.Errorf("dispatch_payload = %+v", dp)
		}
	})
	t.Run("scaling", func(t *testing.T) {
		j := parse(t, "testdata/tg-scaling-policy.nomad.hcl")
		sp := j.TaskGroups[0].Scaling
		if sp == nil || sp.Enabled || sp.Min != 5 || sp.Max != 100 {
			t.Fatalf("scaling = %+v", sp)
		}
		wantPolicy := map[string]any{"foo": "bar", "b": true, "val": int64(5), "f": 0.1,
			"check": []any{map[string]any{"foo": []any{map[string]any{"query": "some_query"}}}}}
		if !reflect.DeepEqual(sp.Policy, wantPolicy) {
			t.Errorf("policy = %#v", sp.Policy)
		}
		j.Canonicalize()
		if j.TaskGroups[0].Count != 5 {
			t.Errorf("count = %d, want min 5", j.TaskGroups[0].Count)
		}
	})
	t.Run("scaling-minimal", func(t *testing.T) {
		// As Nomad's API canonicalizes it: count 1, min the count, enabled.
		j := parse(t, "testdata/tg-scaling-policy-minimal.nomad.hcl")
		j.Canonicalize()
		tg := j.TaskGroups[0]
		if tg.Count != 1 || tg.Scaling.Min != 1 || tg.Scaling.Max != 10 || !tg.Scaling.Enabled {
			t.Fatalf("count %d, scaling %+v", tg.Count, tg.Scaling)
		}
	})
	t.Run("task-in-job", func(t *testing.T) {
		j := parse(t, "testdata/task-in-job.nomad.hcl")
		if len(j.TaskGroups) != 1 || j.TaskGroups[0].Name != "web" || j.TaskGroups[0].Count != 1 ||
			len(j.TaskGroups[0].Tasks) != 1 || j.TaskGroups[0].Tasks[0].Name != "web" {
			t.Fatalf("groups = %+v", j.TaskGroups)
		}
	})
}

// Bad values are errors at their place.
func TestParsePeriodicErrors(t *testing.T) {
	const head = "job \"j\" {\n  type = \"batch\"\n"
	const tail = "  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      config {\n        command = \"/bin/true\"\n      }\n    }\n  }\n}\n"
	for _, tc := range []struct{ name, block, want string }{
		{"bad cron", "  periodic {\n    cron = \"not a cron\"\n  }\n", "x.hcl:4:12: Invalid cron expression"},
		{"bad crons", "  periodic {\n    crons = [\"* * * * *\", \"61 * * * *\"]\n  }\n", "x.hcl:4:13: Invalid cron expression"},
		{"no cron", "  periodic {\n    prohibit_overlap = true\n  }\n", "x.hcl:3:3: Missing cron"},
		{"bad tz", "  periodic {\n    cron = \"* * * * *\"\n    time_zone = \"Mars/Olympus\"\n  }\n", "x.hcl:5:17: Invalid time zone"},
		{"bad payload", "  parameterized {\n    payload = \"sometimes\"\n  }\n", "x.hcl:4:15: Invalid payload"},
		{"scaling min > max", "", ""},
	} {
		if tc.block == "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(&ParseConfig{Path: "x.hcl", Body: []byte(head + tc.block + tail)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	src := "job \"j\" {\n  group \"g\" {\n    scaling {\n      min = 3\n      max = 2\n    }\n    task \"t\" {\n      driver = \"raw_exec\"\n      dispatch_payload {\n        file = \"../../etc/x\"\n      }\n      config {\n        command = \"/bin/true\"\n      }\n    }\n  }\n}\n"
	_, err := Parse(&ParseConfig{Path: "x.hcl", Body: []byte(src)})
	for _, want := range []string{"x.hcl:4:13: Invalid scaling bounds", "x.hcl:10:16: Invalid dispatch_payload file"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}
