package jobspec

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestParseNUMA checks resources { cores numa { affinity } } decodes into
// Resources.Cores and Resources.NUMA.
func TestParseNUMA(t *testing.T) {
	for _, tc := range []struct {
		block string
		want  *structs.NUMA
	}{
		{`cores = 4`, nil},
		{`cores = 4
      numa { affinity = "require" }`, &structs.NUMA{Affinity: "require"}},
		{`cores = 2
      numa { affinity = "prefer" }`, &structs.NUMA{Affinity: "prefer"}},
		{`cores = 2
      numa {}`, &structs.NUMA{Affinity: "none"}},
	} {
		src := "job \"a\" {\n group \"g\" {\n  task \"t\" {\n   driver = \"exec\"\n   resources {\n      " + tc.block + "\n   }\n  }\n }\n}"
		job, err := Parse(&ParseConfig{Path: "numa.hcl", Body: []byte(src)})
		if err != nil {
			t.Fatalf("%s: %v", tc.block, err)
		}
		r := job.TaskGroups[0].Tasks[0].Resources
		if r.Cores == 0 {
			t.Errorf("%s: cores not decoded", tc.block)
		}
		if (r.NUMA == nil) != (tc.want == nil) || (r.NUMA != nil && *r.NUMA != *tc.want) {
			t.Errorf("%s: NUMA = %+v, want %+v", tc.block, r.NUMA, tc.want)
		}
		if r.Canonicalize(); r.Validate() != nil {
			t.Errorf("%s: Validate: %v", tc.block, r.Validate())
		}
	}
}

// TestParseNUMAErrors checks bad numa blocks fail at file:line:col.
func TestParseNUMAErrors(t *testing.T) {
	for _, tc := range []struct{ name, res, want string }{
		{"bad affinity", "cores = 2\n    numa { affinity = \"always\" }",
			`numa.hcl:6:23: Invalid numa affinity; The affinity "always" is not one of "none", "prefer" or "require".`},
		{"numa without cores", "cpu = 500\n    numa { affinity = \"require\" }",
			`numa.hcl:6:5: numa without cores; A numa block only applies to whole cores`},
		{"unknown numa attribute", "cores = 2\n    numa { nodes = 1 }",
			`numa.hcl:6:12: Unsupported argument; An argument named "nodes" is not expected in a numa block.`},
		{"affinity wrong type", "cores = 2\n    numa { affinity = 3 }",
			`numa.hcl:6:23: Invalid numa affinity; The affinity "3" is not one of`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "job \"a\" {\n group \"g\" {\n  task \"t\" {\n   resources {\n    " + tc.res + "\n   }\n  }\n }\n}"
			_, err := Parse(&ParseConfig{Path: "numa.hcl", Body: []byte(src)})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%s\nwant:\n%s", err, tc.want)
			}
		})
	}
}

// TestValidateNUMA checks the structs validation messages (the JSON API
// path, where no HCL positions exist).
func TestValidateNUMA(t *testing.T) {
	for _, tc := range []struct {
		r    structs.Resources
		want string
	}{
		{structs.Resources{Cores: 2, MemoryMB: 100, NUMA: &structs.NUMA{Affinity: "sometimes"}}, `numa affinity must be one of "none", "prefer" or "require"; got "sometimes"`},
		{structs.Resources{CPU: 100, MemoryMB: 100, NUMA: &structs.NUMA{Affinity: "require"}}, `numa affinity "require" needs cores`},
		{structs.Resources{CPU: 100, Cores: 2, MemoryMB: 100}, "only one of cpu or cores may be set"},
		{structs.Resources{Cores: 2, MemoryMB: 100, NUMA: &structs.NUMA{Affinity: "require"}}, ""},
	} {
		err := tc.r.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: unexpected %v", tc.r, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want %q", tc.r, err, tc.want)
		}
	}
}
