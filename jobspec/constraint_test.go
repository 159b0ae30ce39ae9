package jobspec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestParseConstraints(t *testing.T) {
	src := `job "a" {
  node_pool = "gpu"
  constraint {
    attribute = "${attr.kernel.name}"
    value     = "linux"
  }
  constraint {
    distinct_hosts = true
  }
  constraint {
    distinct_hosts = false
  }
  group "g" {
    constraint {
      attribute = "${attr.consul.version}"
      semver    = ">= 1.8.0"
    }
    constraint {
      attribute = "${meta.rack}"
      operator  = "set_contains_any"
      value     = "r1,r2"
    }
    constraint {
      distinct_property = "${meta.rack}"
      value             = "2"
    }
    constraint {
      operator = "distinct_hosts"
    }
    constraint {
      attribute = "${attr.nomad.version}"
      version   = ">= 1.2, < 2.0"
    }
    ephemeral_disk {
      sticky = true
      size   = 1024
    }
    task "t" {
      driver = "raw_exec"
      constraint {
        attribute = "${attr.cpu.arch}"
        regexp    = "^(amd|arm)64$"
      }
      constraint {
        attribute = "${meta.ssd}"
        operator  = "is_set"
      }
    }
  }
  group "h" {
    ephemeral_disk {}
    task "t" {
      driver = "raw_exec"
    }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "c.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
	c := func(l, op, r string) *structs.Constraint {
		return &structs.Constraint{LTarget: l, Operand: op, RTarget: r}
	}
	if want := []*structs.Constraint{c("${attr.kernel.name}", "=", "linux"), c("", "distinct_hosts", "")}; !reflect.DeepEqual(job.Constraints, want) {
		t.Errorf("job constraints = %s", dumpConstraints(job.Constraints))
	}
	g := job.TaskGroups[0]
	want := []*structs.Constraint{
		c("${attr.consul.version}", "semver", ">= 1.8.0"),
		c("${meta.rack}", "set_contains_any", "r1,r2"),
		c("${meta.rack}", "distinct_property", "2"),
		c("", "distinct_hosts", ""),
		c("${attr.nomad.version}", "version", ">= 1.2, < 2.0"),
	}
	if !reflect.DeepEqual(g.Constraints, want) {
		t.Errorf("group constraints = %s", dumpConstraints(g.Constraints))
	}
	want = []*structs.Constraint{c("${attr.cpu.arch}", "regexp", "^(amd|arm)64$"), c("${meta.ssd}", "is_set", "")}
	if tc := g.Tasks[0].Constraints; !reflect.DeepEqual(tc, want) {
		t.Errorf("task constraints = %s", dumpConstraints(tc))
	}
	if d := g.EphemeralDisk; d == nil || *d != (structs.EphemeralDisk{Sticky: true, SizeMB: 1024}) {
		t.Errorf("ephemeral disk = %+v", d)
	}
	if d := job.TaskGroups[1].EphemeralDisk; d == nil || d.SizeMB != 300 {
		t.Errorf("empty ephemeral_disk = %+v, want size 300", d)
	}
	if job.NodePool != "gpu" {
		t.Errorf("node pool = %q", job.NodePool)
	}
	job.Canonicalize()
	if err := job.Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	if ar := structs.AllocatedFor(g); ar.Shared.DiskMB != 1024 {
		t.Errorf("disk ask = %d, want 1024", ar.Shared.DiskMB)
	}
}

func dumpConstraints(cs []*structs.Constraint) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, "["+c.String()+"]")
	}
	return strings.Join(parts, " ")
}

func TestParseConstraintErrors(t *testing.T) {
	wrap := func(body string) string {
		return "job \"a\" {\n  group \"g\" {\n    constraint {\n" + body + "\n    }\n  }\n}"
	}
	for _, tc := range []struct{ name, src, want string }{
		{"bad operator", wrap(`      attribute = "${attr.x}"
      operator  = "~="
      value     = "1"`), `bad.hcl:5:19: Invalid constraint operator; Unknown constraint operator "~=".`},
		{"bad regexp", wrap(`      attribute = "${attr.x}"
      regexp    = "a("`), `bad.hcl:5:19: Invalid constraint value; Constraint regexp: bad regular expression "a("`},
		{"bad regexp in value", wrap(`      attribute = "${attr.x}"
      operator  = "regexp"
      value     = "[z-a]"`), `bad.hcl:6:19: Invalid constraint value; Constraint regexp: bad regular expression "[z-a]"`},
		{"bad version", wrap(`      attribute = "${attr.x}"
      version   = ">= one"`), `bad.hcl:5:19: Invalid constraint value; Constraint version: bad version constraint ">= one"`},
		{"bad semver", wrap(`      attribute = "${attr.x}"
      semver    = ">= 1.2"`), `bad.hcl:5:19: Invalid constraint value; Constraint semver: bad semver constraint ">= 1.2"`},
		{"missing value", wrap(`      attribute = "${attr.x}"`), `bad.hcl:4:19: Invalid constraint; Constraint operator "=" needs a value.`},
		{"is_set with value", wrap(`      attribute = "${attr.x}"
      operator  = "is_set"
      value     = "1"`), `bad.hcl:6:19: Invalid constraint; Constraint operator "is_set" takes no value.`},
		{"bad distinct_property count", wrap(`      distinct_property = "${meta.rack}"
      value             = "0"`), `bad.hcl:5:27: Invalid constraint; Constraint distinct_property: value "0" must be a whole number of at least 1.`},
		{"two operators", wrap(`      attribute = "${attr.x}"
      operator  = "="
      version   = "1.0"`), `bad.hcl:6:7: Conflicting constraint operator; version = … sets the operator, and so does operator; keep one.`},
		{"unknown argument", wrap(`      attr = "${attr.x}"`), `bad.hcl:4:7: Unsupported argument; An argument named "attr" is not expected in a constraint block.`},
		{"negative disk", "job \"a\" {\n  group \"g\" {\n    ephemeral_disk {\n      size = -1\n    }\n  }\n}",
			`bad.hcl:4:14: Invalid ephemeral_disk size; size can't be negative (got -1).`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(&ParseConfig{Path: "bad.hcl", Body: []byte(tc.src)})
			if err == nil {
				t.Fatal("no error")
			}
			found := false
			for _, line := range strings.Split(err.Error(), "\n") {
				found = found || strings.HasPrefix(line, tc.want)
			}
			if !found {
				t.Errorf("error:\n%s\nwant a line starting with:\n%s", err, tc.want)
			}
		})
	}
}
