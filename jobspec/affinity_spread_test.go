package jobspec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestParseAffinitySpread(t *testing.T) {
	src := `job "web" {
  affinity {
    attribute = "${node.datacenter}"
    value     = "dc1"
    weight    = -30
  }
  spread {
    attribute = "${node.datacenter}"
  }
  group "g" {
    affinity {
      attribute = "${meta.rack}"
      operator  = "set_contains_any"
      value     = "r1,r2"
    }
    affinity {
      attribute = "${attr.kernel.version}"
      regexp    = "^5\\."
      weight    = 100
    }
    spread {
      attribute = "${meta.rack}"
      weight    = 80
      target "r1" {
        percent = 60
      }
      target "r2" {
        percent = 40
      }
    }
    task "t" {
      driver = "docker"
      affinity {
        attribute = "${attr.cpu.arch}"
        value     = "amd64"
        weight    = 10
      }
    }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "a.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
	tg := job.TaskGroups[0]
	for _, tc := range []struct{ got, want any }{
		{job.Affinities, []*structs.Affinity{{LTarget: "${node.datacenter}", Operand: "=", RTarget: "dc1", Weight: -30}}},
		{job.Spreads, []*structs.Spread{{Attribute: "${node.datacenter}", Weight: 50}}},
		{tg.Affinities, []*structs.Affinity{
			{LTarget: "${meta.rack}", Operand: "set_contains_any", RTarget: "r1,r2", Weight: 50},
			{LTarget: "${attr.kernel.version}", Operand: "regexp", RTarget: `^5\.`, Weight: 100},
		}},
		{tg.Spreads, []*structs.Spread{{Attribute: "${meta.rack}", Weight: 80,
			SpreadTarget: []*structs.SpreadTarget{{Value: "r1", Percent: 60}, {Value: "r2", Percent: 40}}}}},
		{tg.Tasks[0].Affinities, []*structs.Affinity{{LTarget: "${attr.cpu.arch}", Operand: "=", RTarget: "amd64", Weight: 10}}},
	} {
		got, _ := json.Marshal(tc.got)
		want, _ := json.Marshal(tc.want)
		if string(got) != string(want) {
			t.Errorf("got %s\nwant %s", got, want)
		}
	}
	job.Canonicalize()
	if err := job.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestParseAffinitySpreadErrors(t *testing.T) {
	group := func(body string) string {
		return "job \"a\" {\n group \"g\" {\n" + body + "\n  task \"t\" { driver = \"x\" }\n }\n}"
	}
	for _, tc := range []struct{ name, src, want string }{
		{"affinity weight too high", group("  affinity {\n   attribute = \"${meta.rack}\"\n   value = \"r1\"\n   weight = 120\n  }"),
			`bad.hcl:6:13: Invalid affinity weight; An affinity's weight must be between -100 and 100; got 120.`},
		{"affinity weight zero", group("  affinity {\n   attribute = \"${meta.rack}\"\n   value = \"r1\"\n   weight = 0\n  }"),
			`bad.hcl:6:13: Invalid affinity weight; An affinity's weight can't be 0.`},
		{"affinity bad operator", group("  affinity {\n   attribute = \"${meta.rack}\"\n   operator = \"distinct_hosts\"\n   value = \"r1\"\n  }"),
			`bad.hcl:5:15: Invalid affinity operator; The operator "distinct_hosts" is not one an affinity accepts.`},
		{"affinity without attribute", group("  affinity {\n   value = \"r1\"\n  }"),
			`bad.hcl:3:12: Missing affinity attribute`},
		{"affinity label", group("  affinity \"x\" {\n   attribute = \"a\"\n  }"),
			`bad.hcl:3:12: Extraneous label for affinity`},
		{"spread percent over 100", group("  spread {\n   attribute = \"${meta.rack}\"\n   target \"r1\" {\n    percent = 101\n   }\n  }"),
			`bad.hcl:6:15: Invalid spread target percent; The percent of target "r1" must be between 0 and 100; got 101.`},
		{"spread percents sum over 100", group("  spread {\n   attribute = \"${meta.rack}\"\n   target \"r1\" { percent = 60 }\n   target \"r2\" { percent = 50 }\n  }"),
			`bad.hcl:3:3: Invalid spread targets; The target percentages add up to 110%, more than 100%.`},
		{"spread weight", group("  spread {\n   attribute = \"${meta.rack}\"\n   weight = -5\n  }"),
			`bad.hcl:5:13: Invalid spread weight; A spread's weight must be between 1 and 100; got -5.`},
		{"spread duplicate target", group("  spread {\n   attribute = \"${meta.rack}\"\n   target \"r1\" {}\n   target \"r1\" {}\n  }"),
			`bad.hcl:6:11: Duplicate spread target; The target "r1" is given more than once.`},
		{"spread in task", "job \"a\" {\n group \"g\" {\n  task \"t\" {\n   spread { attribute = \"x\" }\n  }\n }\n}",
			`bad.hcl:4:4: Unsupported block type; Blocks of type "spread" are not expected in a task block.`},
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
