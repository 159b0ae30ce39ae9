package structs

import (
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
)

func TestConstraintValidate(t *testing.T) {
	for _, tc := range []struct {
		l, op, r string
		err      string // "" for valid
	}{
		{"${attr.kernel.name}", "=", "linux", ""},
		{"${attr.kernel.name}", "==", "linux", ""},
		{"${attr.x}", "!=", "1", ""},
		{"${attr.x}", "<", "3", ""},
		{"${attr.x}", "=", "", `needs a value`},
		{"", "=", "linux", `needs an attribute`},
		{"${attr.x}", "~=", "1", `unknown constraint operator "~="`},
		{"${attr.x}", "regexp", "^a+$", ""},
		{"${attr.x}", "regexp", "a(", `bad regular expression`},
		{"${attr.x}", "version", ">= 1.2, < 2.0", ""},
		{"${attr.x}", "version", "~> 1.2", ""},
		{"${attr.x}", "version", ">= one", `bad version constraint`},
		{"${attr.x}", "semver", ">= 1.8.0, < 2.0.0-beta1", ""},
		{"${attr.x}", "semver", ">= 1.8", `three parts`},
		{"${attr.x}", "semver", "~> 1.8.0", `bad semver constraint`},
		{"${attr.x}", "set_contains", "a,b", ""},
		{"${attr.x}", "set_contains_any", "", `needs a value`},
		{"${attr.x}", "is_set", "", ""},
		{"${attr.x}", "is_not_set", "x", `takes no value`},
		{"", "distinct_hosts", "", ""},
		{"${meta.rack}", "distinct_property", "", ""},
		{"${meta.rack}", "distinct_property", "3", ""},
		{"${meta.rack}", "distinct_property", "0", `at least 1`},
		{"", "distinct_property", "", `needs an attribute`},
	} {
		err := (&Constraint{LTarget: tc.l, Operand: tc.op, RTarget: tc.r}).Validate()
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s %s %s: %v", tc.l, tc.op, tc.r, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s %s %s: error %v, want %q", tc.l, tc.op, tc.r, err, tc.err)
		}
	}
}

func TestJobValidateConstraints(t *testing.T) {
	j := &Job{ID: "a", Constraints: []*Constraint{{LTarget: "${attr.x}", Operand: "bogus", RTarget: "1"}},
		TaskGroups: []*TaskGroup{{Name: "g", Constraints: []*Constraint{{LTarget: "${attr.x}", Operand: "regexp", RTarget: "("}},
			EphemeralDisk: &EphemeralDisk{SizeMB: -1},
			Tasks: []*Task{{Name: "t", Driver: "raw_exec",
				Constraints: []*Constraint{{LTarget: "${attr.x}", Operand: "version", RTarget: "x.y"}}}}}}}
	j.Canonicalize()
	err := j.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`job: unknown constraint operator "bogus"`, `group "g": constraint regexp`,
		`group "g": ephemeral_disk size can't be negative`, `group "g": task "t": constraint version`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestSemverConstraints(t *testing.T) {
	for _, tc := range []struct {
		c, v string
		want bool
	}{
		{">= 1.8.0", "1.8.0", true},
		{">= 1.8.0", "1.10.2", true},
		{">= 1.8.0", "1.7.9", false},
		{">= 1.8.0", "1.9.0-beta1", true}, // semver order, unlike "version"
		{">= 1.8.0", "1.8.0-rc1", false},
		{"1.8.0", "1.8.0+ent", true},
		{"!= 1.8.0", "1.8.1", true},
		{"> 1.0.0, < 2.0.0", "2.0.0", false},
		{"> 1.0.0, <= 2.0.0", "2.0.0", true},
		{"< 1.0.0", "0.9.9", true},
	} {
		cs, err := ParseSemverConstraint(tc.c)
		if err != nil {
			t.Fatalf("%q: %v", tc.c, err)
		}
		v := version.Must(version.NewSemver(tc.v))
		if got := cs.Check(v); got != tc.want {
			t.Errorf("%q check %q = %v, want %v", tc.c, tc.v, got, tc.want)
		}
	}
}

func TestComputeClass(t *testing.T) {
	mk := func(id string) *Node {
		return &Node{ID: id, Name: id, Datacenter: "dc1", NodeClass: "web",
			Attributes: map[string]string{"kernel.name": "linux", "unique.hostname": id},
			Meta:       map[string]string{"rack": "r1", "unique.serial": id},
			Drivers:    map[string]*DriverInfo{"exec": {Detected: true, Healthy: true}}}
	}
	a, b := mk("a"), mk("b")
	a.ComputeClass()
	b.ComputeClass()
	if a.ComputedClass == "" || a.ComputedClass != b.ComputedClass {
		t.Fatalf("classes %q %q: unique.* values must not count", a.ComputedClass, b.ComputedClass)
	}
	for name, change := range map[string]func(n *Node){
		"dc":     func(n *Node) { n.Datacenter = "dc2" },
		"pool":   func(n *Node) { n.NodePool = "gpu" },
		"class":  func(n *Node) { n.NodeClass = "db" },
		"attr":   func(n *Node) { n.Attributes["kernel.name"] = "darwin" },
		"meta":   func(n *Node) { n.Meta["rack"] = "r2" },
		"driver": func(n *Node) { n.Drivers["exec"].Healthy = false },
		"key":    func(n *Node) { n.Meta["rac"] = "kr1"; delete(n.Meta, "rack") },
	} {
		c := mk("c")
		change(c)
		c.ComputeClass()
		if c.ComputedClass == a.ComputedClass {
			t.Errorf("%s change kept the class", name)
		}
	}
	def := mk("d")
	def.NodePool = "default"
	def.ComputeClass()
	if def.ComputedClass != a.ComputedClass {
		t.Errorf("an empty pool is the default pool")
	}
}

func TestEphemeralDiskAsk(t *testing.T) {
	j := &Job{ID: "a", TaskGroups: []*TaskGroup{{Name: "g", Tasks: []*Task{{Name: "t", Driver: "raw_exec",
		Resources: &Resources{CPU: 100, MemoryMB: 100, DiskMB: 50}}}}}}
	j.Canonicalize()
	tg := j.TaskGroups[0]
	if tg.EphemeralDisk == nil || tg.EphemeralDisk.SizeMB != DefaultEphemeralDiskMB {
		t.Fatalf("ephemeral disk = %+v, want the default", tg.EphemeralDisk)
	}
	if got := AllocatedFor(tg).Shared.DiskMB; got != 350 {
		t.Errorf("disk ask = %d, want 350 (task 50 + ephemeral 300)", got)
	}
	tg.EphemeralDisk = &EphemeralDisk{SizeMB: 1000}
	j.Canonicalize()
	if got := AllocatedFor(tg).Shared.DiskMB; got != 1050 {
		t.Errorf("disk ask = %d, want 1050", got)
	}
}

func TestInNodePool(t *testing.T) {
	n := &Node{}
	if !InNodePool("", n) || !InNodePool("default", n) || !InNodePool("all", n) || InNodePool("gpu", n) {
		t.Error("a node without a pool is in default (and all)")
	}
	n.NodePool = "gpu"
	if InNodePool("default", n) || !InNodePool("gpu", n) || !InNodePool("all", n) {
		t.Error("gpu node")
	}
}
