package jobspec

import (
	"strings"
	"testing"
)

// TestParseErrors checks that each bad file fails with a message naming
// file:line:col and the problem.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		vars      []string
		want      string // a line of the error: "bad.hcl:line:col: summary; detail…"
	}{
		{"unknown job attribute", "job \"a\" {\n  bogus = 1\n}",
			nil, `bad.hcl:2:3: Unsupported argument; An argument named "bogus" is not expected in a job block.`},
		{"unknown task block", "job \"a\" {\n group \"g\" {\n  task \"t\" {\n   driver = \"x\"\n   frobnicate {}\n  }\n }\n}",
			nil, `bad.hcl:5:4: Unsupported block type; Blocks of type "frobnicate" are not expected in a task block.`},
		{"unknown resources attribute", "job \"a\" {\n group \"g\" {\n  task \"t\" {\n   resources { gpus = 2 }\n  }\n }\n}",
			nil, `bad.hcl:4:16: Unsupported argument; An argument named "gpus" is not expected in a resources block.`},
		{"unknown top-level block", "jobs \"a\" {}",
			nil, `bad.hcl:1:1: Unsupported block type; Blocks of type "jobs" are not expected at the top level`},
		{"misspelt group argument", "job \"a\" {\n group \"g\" {\n  cuont = 2\n }\n}",
			nil, `bad.hcl:3:3: Unsupported argument; An argument named "cuont" is not expected in a group block. Did you mean "count"?`},
		{"misspelt task block", "job \"a\" {\n group \"g\" {\n  task \"t\" {\n   driver = \"x\"\n   confg {}\n  }\n }\n}",
			nil, `bad.hcl:5:4: Unsupported block type; Blocks of type "confg" are not expected in a task block. Did you mean "config"?`},
		{"misspelt task argument", "job \"a\" {\n group \"g\" {\n  task \"t\" {\n   drvier = \"x\"\n  }\n }\n}",
			nil, `bad.hcl:4:4: Unsupported argument; An argument named "drvier" is not expected in a task block. Did you mean "driver"?`},
		{"misspelt top-level block", "jbo \"a\" {}",
			nil, `bad.hcl:1:1: Unsupported block type; Blocks of type "jbo" are not expected at the top level; a job file holds job, variable, variables and locals blocks. Did you mean "job"?`},
		{"misspelt variable argument", "variable \"x\" {\n  defualt = 1\n}\njob \"a\" {}",
			nil, `bad.hcl:2:3: Unsupported argument; An argument named "defualt" is not expected in a variable block; use type, default, description. Did you mean "default"?`},
		{"count wrong type", "job \"a\" {\n group \"g\" {\n  count = \"two\"\n }\n}",
			nil, `bad.hcl:3:11: Incorrect attribute value type; Inappropriate value for attribute "count": number required.`},
		{"count not whole", "job \"a\" {\n group \"g\" {\n  count = 1.5\n }\n}",
			nil, `bad.hcl:3:11: Incorrect attribute value type; Inappropriate value for attribute "count": a whole number is required, got 1.5.`},
		{"datacenters wrong type", "job \"a\" {\n  datacenters = \"dc1\"\n}",
			nil, `bad.hcl:2:17: Incorrect attribute value type; Inappropriate value for attribute "datacenters": list of string required.`},
		{"bool wrong type", "job \"a\" {\n  all_at_once = \"maybe\"\n}",
			nil, `bad.hcl:2:17: Incorrect attribute value type; Inappropriate value for attribute "all_at_once"`},
		{"bad duration", "job \"a\" {\n group \"g\" {\n  task \"t\" {\n   kill_timeout = \"5 parsecs\"\n  }\n }\n}",
			nil, `bad.hcl:4:19: Invalid duration; The value "5 parsecs" of "kill_timeout" is not a duration`},
		{"bad restart duration", "job \"a\" {\n group \"g\" {\n  restart { delay = \"soon\" }\n }\n}",
			nil, `bad.hcl:3:21: Invalid duration; The value "soon" of "delay" is not a duration`},
		{"missing group label", "job \"a\" {\n group {\n }\n}",
			nil, `bad.hcl:2:8: Missing name for group; A group block requires 1 label(s): name.`},
		{"missing job label", "job {\n}",
			nil, `bad.hcl:1:5: Missing name for job; A job block requires 1 label(s): id.`},
		{"extra task label", "job \"a\" {\n group \"g\" {\n  task \"t\" \"u\" {}\n }\n}",
			nil, `bad.hcl:3:12: Extraneous label for task; A task block takes 1 label(s); remove this one.`},
		{"undefined variable", "job \"a\" {\n  region = var.nope\n}",
			nil, `bad.hcl:2:12: Undefined variable; var.nope is not declared; add a variable "nope" block.`},
		{"undefined variable in template", "job \"a\" {\n  region = \"r-${var.nope}\"\n}",
			nil, `bad.hcl:2:17: Undefined variable; var.nope is not declared`},
		{"undefined variable in locals", "locals {\n  a = upper(var.nope)\n}\njob \"a\" {}",
			nil, `bad.hcl:2:13: Undefined variable; var.nope is not declared`},
		{"undefined local", "job \"a\" {\n  region = local.nope\n}",
			nil, `bad.hcl:2:12: Undefined local; local.nope is not defined; add nope = … to a locals block.`},
		{"unknown bare reference", "job \"a\" {\n  region = attr.kernel\n}",
			nil, `bad.hcl:2:12: Unknown variable; There is no variable named "attr".`},
		{"undeclared -var", "job \"a\" {}", []string{"x=1"},
			`bad.hcl:1:1: Undefined -var variable; A value was given with -var for "x", but the job file declares no variable "x"`},
		{"malformed -var", "variable \"x\" {}\njob \"a\" {}", []string{"x"},
			`bad.hcl:1:1: Invalid -var option; The -var "x" is not of the form name=value.`},
		{"missing required variable", "job \"a\" {}\nvariable \"need\" {\n  type = string\n}",
			nil, `bad.hcl:2:1: Missing value for required variable; The variable "need" has no default`},
		{"-var wrong type", "variable \"n\" {\n  type = number\n}\njob \"a\" {}", []string{"n=abc"},
			`bad.hcl:1:1: Invalid value for variable; The -var value for variable "n" is not a number: a number is required.`},
		{"default wrong type", "variable \"n\" {\n  type    = number\n  default = \"x\"\n}\njob \"a\" {}", nil,
			`bad.hcl:3:13: Invalid value for variable; The default value for variable "n" is not a number`},
		{"validation fails", "variable \"n\" {\n  default = 0\n  validation {\n    condition     = var.n > 0\n    error_message = \"n must be positive\"\n  }\n}\njob \"a\" {}", nil,
			`bad.hcl:3:3: Invalid value for variable; var.n: n must be positive`},
		{"unknown variable attribute", "variable \"n\" {\n  sensitive = true\n}\njob \"a\" {}", nil,
			`bad.hcl:2:3: Unsupported argument; An argument named "sensitive" is not expected in a variable block`},
		{"duplicate variable", "variable \"n\" { default = 1 }\nvariable \"n\" { default = 2 }\njob \"a\" {}", nil,
			`bad.hcl:2:1: Duplicate variable declaration; A variable named "n" was already declared at bad.hcl:1:1.`},
		{"locals cycle", "locals {\n  a = local.b\n  b = local.a\n}\njob \"a\" {}", nil,
			`bad.hcl:2:3: Cycle in local values; The local "a" depends on itself through other locals.`},
		{"unknown function", "job \"a\" {\n  region = env(\"HOME\")\n}", nil,
			`bad.hcl:2:12: Call to unknown function; There is no function named "env".`},
		{"two jobs", "job \"a\" {}\njob \"b\" {}", nil,
			`bad.hcl:2:1: Duplicate job block; Only one job may be defined per file; the first is at bad.hcl:1:1.`},
		{"no job", "locals {}", nil, `bad.hcl:1:1: Missing job block; A job file must contain one job block.`},
		{"duplicate resources", "job \"a\" {\n group \"g\" {\n  task \"t\" {\n   resources {}\n   resources {}\n  }\n }\n}", nil,
			`bad.hcl:5:4: Duplicate resources block; Only one resources block is allowed in a task block; the first is at bad.hcl:4:4.`},
		{"syntax error", "job \"a\" {\n  type = \n}", nil, `bad.hcl:2:10: Invalid expression; Expected the start of an expression`},
		{"meta list value", "job \"a\" {\n  meta {\n    k = [1]\n  }\n}", nil,
			`bad.hcl:3:9: Incorrect attribute value type; Inappropriate value for attribute "k": string required.`},
		{"config arg and block", "job \"a\" {\n group \"g\" {\n  task \"t\" {\n   config {\n    m = 1\n    m {}\n   }\n  }\n }\n}", nil,
			`bad.hcl:6:5: Duplicate config key; "m" is set both as an argument (at bad.hcl:5:5) and as a block.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, err := Parse(&ParseConfig{Path: "bad.hcl", Body: []byte(tc.src), ArgVars: tc.vars})
			if err == nil {
				t.Fatalf("no error; job = %+v", job)
			}
			if job != nil {
				t.Errorf("job returned with an error")
			}
			var found bool
			for _, line := range strings.Split(err.Error(), "\n") {
				found = found || strings.HasPrefix(line, tc.want)
			}
			if !found {
				t.Errorf("error:\n%s\nwant a line starting with:\n%s", err, tc.want)
			}
		})
	}
}

// TestUnimplementedBlocksWarn checks Nomad blocks nomadish ignores are
// warnings, not errors, and are not evaluated.
func TestUnimplementedBlocksWarn(t *testing.T) {
	src := `job "a" {
  ui {
    description = "${attr.kernel.name}"
    title       = "linux"
  }
  periodic {
    cron = "@daily"
  }
  vault_token = "x"
  group "g" {
    shutdown_delay = "5s"
    consul {
      namespace = "x"
      cluster = undefined_thing
    }
    task "t" {
      driver = "docker"
      vault {
        policies = [undefined_thing]
      }
      resources {
        memory = 10
        device "nvidia/gpu" { count = 1 }
      }
    }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "w.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`w.hcl:2:3: Unsupported block ignored; nomadish does not implement "ui" blocks in a job yet`,
		`w.hcl:9:3: Unsupported argument ignored; nomadish does not implement job.vault_token yet`,
		`w.hcl:12:5: Unsupported block ignored; nomadish does not implement "consul" blocks in a group yet`,
		`w.hcl:18:7: Unsupported block ignored; nomadish does not implement "vault" blocks in a task yet`,
		`w.hcl:23:9: Unsupported block ignored; nomadish does not implement "device" blocks in a resources yet`,
	}
	if len(warnings) != len(want) {
		t.Fatalf("warnings:\n%s", strings.Join(warnings, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(warnings[i], want[i]) {
			t.Errorf("warning %d = %q, want prefix %q", i, warnings[i], want[i])
		}
	}
	if job.TaskGroups[0].Tasks[0].Resources.MemoryMB != 10 {
		t.Errorf("resources not decoded")
	}
}
