package scheduler

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func constraintNode() *structs.Node {
	return &structs.Node{
		ID: "node-1", Name: "web-1", Datacenter: "dc1", NodeClass: "large", NodePool: "gpu",
		Attributes: map[string]string{
			"kernel.name": "linux", "cpu.numcores": "8", "cpu.frequency": "2.5", "nomad.version": "1.7.3",
			"consul.version": "1.9.0-beta1", "os.name": "ubuntu", "nomad.region": "eu",
			"unique.hostname": "web-1.example", "driver.docker.volumes": "true",
		},
		Meta: map[string]string{"rack": "r1, r2,r3", "ssd": "true", "empty": ""},
	}
}

// TestCheckConstraint is the operator table: each row is one constraint
// checked against constraintNode.
func TestCheckConstraint(t *testing.T) {
	for _, tc := range []struct {
		l, op, r string
		want     bool
	}{
		// targets
		{"${attr.kernel.name}", "=", "linux", true},
		{"${attr.kernel.name}", "", "linux", true}, // default operator
		{"${attr.kernel.name}", "==", "windows", false},
		{"${node.unique.id}", "=", "node-1", true},
		{"${node.unique.name}", "=", "web-1", true},
		{"${node.datacenter}", "=", "dc1", true},
		{"${node.class}", "=", "large", true},
		{"${node.pool}", "=", "gpu", true},
		{"${node.region}", "=", "eu", true},
		{"${meta.ssd}", "=", "true", true},
		{"${attr.unique.hostname}", "=", "web-1.example", true},
		{"linux", "=", "${attr.kernel.name}", true},
		{"${attr.missing}", "=", "", false}, // not set is not equal to anything
		{"${node.bogus}", "=", "", false},
		{"${meta.empty}", "=", "", true},
		// !=
		{"${attr.kernel.name}", "!=", "windows", true},
		{"${attr.kernel.name}", "!=", "linux", false},
		{"${attr.missing}", "!=", "linux", true},
		{"${attr.missing}", "not", "${attr.missing2}", false},
		// order: integers, then floats, then strings
		{"${attr.cpu.numcores}", ">", "4", true},
		{"${attr.cpu.numcores}", ">", "10", false}, // numeric, not lexical
		{"${attr.cpu.numcores}", ">=", "8", true},
		{"${attr.cpu.numcores}", "<", "8", false},
		{"${attr.cpu.numcores}", "<=", "8", true},
		{"${attr.cpu.frequency}", "<", "2.75", true},
		{"${attr.os.name}", ">", "debian", true},
		{"${attr.missing}", "<", "1", false},
		// is_set, is_not_set
		{"${meta.ssd}", "is_set", "", true},
		{"${meta.nvme}", "is_set", "", false},
		{"${meta.nvme}", "is_not_set", "", true},
		{"${meta.ssd}", "is_not_set", "", false},
		// regexp
		{"${attr.kernel.name}", "regexp", "^lin", true},
		{"${attr.kernel.name}", "regexp", "^win", false},
		{"${attr.kernel.name}", "regexp", "a(", false}, // bad pattern never matches
		{"${attr.missing}", "regexp", ".*", false},
		// version (go-version: pre-releases match only pre-release constraints)
		{"${attr.nomad.version}", "version", ">= 1.2, < 2.0", true},
		{"${attr.nomad.version}", "version", "~> 1.7.0", true},
		{"${attr.nomad.version}", "version", "~> 1.6.0", false},
		{"${attr.nomad.version}", "version", "< 1.7", false},
		{"${attr.consul.version}", "version", ">= 1.8.0", false},
		{"${attr.kernel.name}", "version", ">= 1.0", false}, // not a version
		{"${attr.nomad.version}", "version", "garbage", false},
		// semver (pre-releases order by the semver rules)
		{"${attr.consul.version}", "semver", ">= 1.8.0", true},
		{"${attr.consul.version}", "semver", ">= 1.9.0", false},
		{"${attr.nomad.version}", "semver", ">= 1.7.0, < 1.8.0", true},
		{"${attr.nomad.version}", "semver", ">= 1.7", false}, // not strict semver
		// sets
		{"${meta.rack}", "set_contains", "r2", true},
		{"${meta.rack}", "set_contains", "r1,r3", true},
		{"${meta.rack}", "set_contains_all", "r1, r4", false},
		{"${meta.rack}", "set_contains_any", "r9,r3", true},
		{"${meta.rack}", "set_contains_any", "r9,r8", false},
		{"${meta.missing}", "set_contains_any", "r1", false},
		// distinct_* are checked against allocations elsewhere
		{"", "distinct_hosts", "", true},
		{"${meta.rack}", "distinct_property", "", true},
		{"${attr.kernel.name}", "frobnicate", "linux", false},
	} {
		cc := compileConstraint(&structs.Constraint{LTarget: tc.l, Operand: tc.op, RTarget: tc.r})
		cache := newConstraintCache()
		if got := cc.check(cache, constraintNode()); got != tc.want {
			t.Errorf("%s %s %s = %v, want %v", tc.l, tc.op, tc.r, got, tc.want)
		}
		if got := cc.check(cache, constraintNode()); got != tc.want { // cached parse
			t.Errorf("%s %s %s (cached) = %v, want %v", tc.l, tc.op, tc.r, got, tc.want)
		}
	}
}

func TestNodesInPool(t *testing.T) {
	nodes := []*structs.Node{{ID: "a"}, {ID: "b", NodePool: "gpu"}, {ID: "c", NodePool: "default"}}
	ids := func(ns []*structs.Node) (out []string) {
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	for pool, want := range map[string]string{"default": "[a c]", "gpu": "[b]", "all": "[a b c]", "none": "[]"} {
		if got := ids(nodesInPool(nodes, pool)); fmtList(got) != want {
			t.Errorf("pool %s: %v, want %s", pool, got, want)
		}
	}
}

func fmtList(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}

// TestSetContainsNoAlloc keeps the set operators allocation-free.
func TestSetContainsNoAlloc(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		setContains("r0,r1,r2,r3", "r9, r2", false)
		setContains("r0,r1,r2,r3", "r1,r2", true)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run", allocs)
	}
}
