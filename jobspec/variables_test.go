package jobspec

import (
	"reflect"
	"strings"
	"testing"
)

const varsJob = `
variable "image" {
  type    = string
  default = "redis:7"
}
variable "count" {
  type    = number
  default = 2
}
variable "dcs" {
  type    = list(string)
  default = ["dc1", "dc2"]
}
variable "opts" {
  type    = object({ size = number, name = optional(string, "anon") })
  default = { size = 1 }
}
variable "any" {
  default = "plain"
}
locals {
  tag = "${var.image}-${local.n}"
  n   = var.count * 10
}
job "v" {
  datacenters = var.dcs
  meta {
    image = var.image
    tag   = local.tag
    size  = var.opts.size
    who   = var.opts.name
    any   = var.any
  }
  group "g" {
    count = var.count
  }
}
`

func TestVariables(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cfg       ParseConfig
		wantCount int
		wantDCs   []string
		wantMeta  map[string]string
	}{
		{"defaults", ParseConfig{}, 2, []string{"dc1", "dc2"},
			map[string]string{"image": "redis:7", "tag": "redis:7-20", "size": "1", "who": "anon", "any": "plain"}},
		{"-var override and conversion", ParseConfig{ArgVars: []string{
			"count=5", "dcs=[\"a\", \"b\"]", "image=nginx", "opts={size = 3, name = \"x\"}", "any=42",
		}}, 5, []string{"a", "b"},
			map[string]string{"image": "nginx", "tag": "nginx-50", "size": "3", "who": "x", "any": "42"}},
		{"env", ParseConfig{Envs: []string{"NOMAD_VAR_count=7", "HOME=/root", "NOMAD_VAR_undeclared=1"}}, 7,
			[]string{"dc1", "dc2"}, map[string]string{"image": "redis:7", "tag": "redis:7-70", "size": "1", "who": "anon", "any": "plain"}},
		{"var files", ParseConfig{VarFiles: []string{"testdata/vars.hcl", "testdata/vars.json"}}, 4,
			[]string{"x", "y"}, map[string]string{"image": "nginx:1", "tag": "nginx:1-40", "size": "1", "who": "anon", "any": "plain"}},
		{"var content after files", ParseConfig{VarFiles: []string{"testdata/vars.hcl"}, VarContent: []byte("count = 6\n")}, 6,
			[]string{"dc1", "dc2"}, map[string]string{"image": "nginx:1", "tag": "nginx:1-60", "size": "1", "who": "anon", "any": "plain"}},
		{"precedence env < file < -var", ParseConfig{
			Envs: []string{"NOMAD_VAR_count=7", "NOMAD_VAR_image=fromenv"}, VarFiles: []string{"testdata/vars.hcl"},
			ArgVars: []string{"count=9"},
		}, 9, []string{"dc1", "dc2"}, map[string]string{"image": "nginx:1", "tag": "nginx:1-90", "size": "1", "who": "anon", "any": "plain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Path, cfg.Body = "v.hcl", []byte(varsJob)
			job, warnings, err := ParseWithWarnings(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings: %q", warnings)
			}
			if got := job.TaskGroups[0].Count; got != tc.wantCount {
				t.Errorf("count = %d, want %d", got, tc.wantCount)
			}
			if !reflect.DeepEqual(job.Datacenters, tc.wantDCs) {
				t.Errorf("datacenters = %q, want %q", job.Datacenters, tc.wantDCs)
			}
			if !reflect.DeepEqual(job.Meta, tc.wantMeta) {
				t.Errorf("meta = %v, want %v", job.Meta, tc.wantMeta)
			}
		})
	}
}

func TestVarFileUndeclared(t *testing.T) {
	cfg := &ParseConfig{Path: "v.hcl", Body: []byte(varsJob), VarFiles: []string{"testdata/vars-undeclared.hcl"}}
	_, warnings, err := ParseWithWarnings(cfg)
	if err != nil || len(warnings) != 1 ||
		!strings.HasPrefix(warnings[0], `testdata/vars-undeclared.hcl:1:1: Undefined variable; The var file sets "nope"`) {
		t.Fatalf("non-strict: err %v warnings %q", err, warnings)
	}
	cfg.Strict = true
	_, err = Parse(cfg)
	if err == nil || !strings.HasPrefix(err.Error(), `testdata/vars-undeclared.hcl:1:1: Undefined variable`) {
		t.Fatalf("strict: err = %v", err)
	}
}

func TestVarFileErrors(t *testing.T) {
	for _, tc := range []struct{ file, body, want string }{
		{"bad-type.hcl", "count = \"many\"\n", `bad-type.hcl:1:9: Invalid value for variable; The var file value for variable "count" is not a number`},
		{"block.hcl", "x {}\n", `block.hcl:1:1: Unexpected "x" block; Blocks are not allowed here.`},
		{"missing.hcl", "", `missing.hcl:1:1: Failed to read var file`},
	} {
		path := t.TempDir() + "/" + tc.file
		if tc.body != "" {
			writeFile(t, path, tc.body)
		}
		_, err := Parse(&ParseConfig{Path: "v.hcl", Body: []byte(varsJob), VarFiles: []string{path}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.file, err, tc.want)
		}
	}
}

func TestRuntimeInterpolationKept(t *testing.T) {
	src := `variable "x" { default = "v" }
job "r" {
  meta {
    a = "${node.unique.name}"
    b = "pre-${attr.cpu.arch}-${var.x}-$${literal}"
    c = "${NOMAD_META_foo}${meta.bar}"
    d = <<EOT
dir=${NOMAD_TASK_DIR}
EOT
  }
}`
	job, err := Parse(&ParseConfig{Path: "r.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a": "${node.unique.name}", "b": "pre-${attr.cpu.arch}-v-${literal}",
		"c": "${NOMAD_META_foo}${meta.bar}", "d": "dir=${NOMAD_TASK_DIR}\n",
	}
	if !reflect.DeepEqual(job.Meta, want) {
		t.Errorf("meta = %q, want %q", job.Meta, want)
	}
}
