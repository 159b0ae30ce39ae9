package structs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzJobNameBounds feeds arbitrary job IDs, group and task names and
// resource amounts to Validate: it never panics, and a job it accepts has
// names that are bounded printable UTF-8 without NUL (task and group names
// are no path tricks) and resources within the ceilings.
func FuzzJobNameBounds(f *testing.F) {
	f.Add("web", "g", "t", 100, 300)
	f.Add("web\x00x", "g", "t", 100, 300)
	f.Add(strings.Repeat("x", 1<<20), "g", "t", 100, 300)
	f.Add("../../etc", "..", "a/b", 9223372036854775807, 9223372036854775807)
	f.Add("a\xffb", "g\x00", `t\u`, -1, -1)
	f.Add("batch/periodic-1", ".", "\x1b[2J", 67108864, 134217728)
	f.Fuzz(func(t *testing.T, id, group, task string, cpu, mem int) {
		j := &Job{ID: id, TaskGroups: []*TaskGroup{{Name: group, Count: 1,
			Tasks: []*Task{{Name: task, Driver: "raw_exec", Resources: &Resources{CPU: cpu, MemoryMB: mem}}}}}}
		j.Canonicalize()
		err := j.Validate()
		if err != nil {
			return
		}
		for _, s := range []string{id, group, task} {
			if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 || len(s) > MaxJobIDLength {
				t.Fatalf("accepted name %q", s)
			}
		}
		for _, s := range []string{group, task} {
			if strings.ContainsAny(s, `/\`) || s == "." || s == ".." || len(s) > MaxNameLength {
				t.Fatalf("accepted path name %q", s)
			}
		}
		r := j.TaskGroups[0].Tasks[0].Resources // canonicalized: 0 became the default
		if r.CPU > MaxCPU || r.MemoryMB > MaxMemoryMB || r.CPU < 0 || r.MemoryMB < MinMemoryMB {
			t.Fatalf("accepted cpu %d memory %d", r.CPU, r.MemoryMB)
		}
	})
}
