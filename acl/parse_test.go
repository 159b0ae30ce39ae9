package acl

import (
	"slices"
	"strings"
	"testing"
)

func TestParseExpandsPolicies(t *testing.T) {
	p, err := Parse("", `
namespace "default" {
  policy       = "read"
  capabilities = ["submit-job"]
}
namespace "team-*" {
  policy = "write"
  variables {
    path "app/*" { capabilities = ["read"] }
  }
}
namespace "autoscale" { policy = "scale" }
namespace "vol" { capabilities = ["host-volume-write"] }
node_pool "prod" { policy = "read" }
host_volume "data" { policy = "write" }
agent { policy = "read" }
node { policy = "write" }
operator { policy = "read" }
quota { policy = "read" }
plugin { policy = "list" }
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Namespaces) != 4 {
		t.Fatalf("namespaces = %d", len(p.Namespaces))
	}
	def := p.Namespaces[0]
	for _, c := range []string{"submit-job", "list-jobs", "parse-job", "read-job", "csi-list-volume",
		"csi-read-volume", "read-job-scaling", "list-scaling-policies", "read-scaling-policy", "host-volume-read"} {
		if !slices.Contains(def.Capabilities, c) {
			t.Errorf("read+submit-job lacks %s: %v", c, def.Capabilities)
		}
	}
	if slices.Contains(def.Capabilities, "read-logs") {
		t.Errorf("read grants read-logs")
	}
	team := p.Namespaces[1]
	for _, c := range []string{"submit-job", "dispatch-job", "read-logs", "read-fs", "alloc-exec",
		"alloc-lifecycle", "scale-job", "csi-mount-volume", "csi-write-volume", "submit-recommendation", "host-volume-create"} {
		if !slices.Contains(team.Capabilities, c) {
			t.Errorf("write lacks %s", c)
		}
	}
	if slices.Contains(team.Capabilities, "alloc-node-exec") {
		t.Errorf("write must not grant alloc-node-exec")
	}
	if len(team.Variables) != 1 || team.Variables[0].PathSpec != "app/*" ||
		!slices.Equal(team.Variables[0].Capabilities, []string{"read", "list"}) {
		t.Errorf("variables = %+v", team.Variables[0])
	}
	if got := p.Namespaces[2].Capabilities; !slices.Contains(got, "scale-job") || slices.Contains(got, "submit-job") {
		t.Errorf("scale = %v", got)
	}
	if got := p.Namespaces[3].Capabilities; !slices.Contains(got, "host-volume-delete") || !slices.Contains(got, "host-volume-register") {
		t.Errorf("host-volume-write expansion = %v", got)
	}
	if p.Agent != "read" || p.Node != "write" || p.Quota != "read" || p.Plugin != "list" || p.Operator.Policy != "read" {
		t.Errorf("levels = %+v", p)
	}
	if !slices.Equal(p.HostVolumes[0].Capabilities, []string{"mount-readonly", "mount-readwrite"}) {
		t.Errorf("host volume = %v", p.HostVolumes[0].Capabilities)
	}
	if !slices.Equal(p.NodePools[0].Capabilities, []string{"read"}) {
		t.Errorf("node pool = %v", p.NodePools[0].Capabilities)
	}
}

func TestParseRefusesWithPosition(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown block", "namespce \"x\" { policy = \"read\" }", `p.hcl:1:1: Unsupported block type; Blocks of type "namespce" are not expected in a policy. Did you mean "namespace"?`},
		{"unknown capability", "namespace \"x\" {\n  capabilities = [\"list-jobs\", \"sumbit-job\"]\n}", `p.hcl:2:32: Invalid capability; "sumbit-job" is not a namespace capability. Did you mean "submit-job"?`},
		{"unknown policy", "node {\n  policy = \"wirte\"\n}", `p.hcl:2:12: Invalid policy; "wirte" is not a node policy; use one of "deny", "read", "write". Did you mean "write"?`},
		{"scale outside namespace", `agent { policy = "scale" }`, `p.hcl:1:18: Invalid policy`},
		{"unknown argument", "namespace \"x\" {\n  polcy = \"read\"\n}", `p.hcl:2:3: Unsupported argument; An argument named "polcy" is not expected in a namespace block. Did you mean "policy"?`},
		{"top-level argument", `policy = "read"`, `p.hcl:1:1: Unsupported argument`},
		{"missing label", `namespace { policy = "read" }`, `p.hcl:1:1: Wrong number of labels`},
		{"label on agent", `agent "x" { policy = "read" }`, `p.hcl:1:1: Unexpected label`},
		{"bad name", `namespace "a b" { policy = "read" }`, `p.hcl:1:11: Invalid name`},
		{"variables path capability", "namespace \"x\" {\n variables {\n  path \"*\" { capabilities = [\"raed\"] }\n }\n}", `p.hcl:3:30: Invalid capability; "raed" is not a path capability. Did you mean "read"?`},
		{"variables unknown block", "namespace \"x\" {\n variables {\n  pth \"*\" { }\n }\n}", `p.hcl:3:3: Unsupported block type; Blocks of type "pth" are not expected in a variables block. Did you mean "path"?`},
		{"empty", "", `Empty policy`},
		{"syntax", `namespace "x" {`, `p.hcl:1:`},
		{"agent without policy", `agent {}`, `p.hcl:1:1: Missing policy`},
		{"capabilities not a list", `namespace "x" { capabilities = "read-job" }`, `p.hcl:1:32: Invalid capabilities`},
		{"host volume capability", `host_volume "x" { capabilities = ["mount"] }`, `Invalid capability; "mount" is not a host_volume capability.`},
		{"plugin scale", `plugin { policy = "scale" }`, `Invalid policy`},
		{"operator capability", `operator { capabilities = ["snapshot-sav"] }`, `Did you mean "snapshot-save"?`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("p.hcl", c.src)
			if err == nil {
				t.Fatalf("accepted %q", c.src)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error\n%s\nwant it to contain\n%s", err, c.want)
			}
		})
	}
}

func TestParseDeepNestingRefused(t *testing.T) {
	src := `namespace "x" { capabilities = ` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + ` }`
	if _, err := Parse("p.hcl", src); err == nil {
		t.Fatal("accepted")
	}
}
