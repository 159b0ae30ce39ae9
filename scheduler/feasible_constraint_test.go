package scheduler

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func classJob() *structs.Job {
	return &structs.Job{ID: "web", Namespace: "default", NodePool: "default",
		Constraints: []*structs.Constraint{{LTarget: "${attr.kernel.name}", Operand: "=", RTarget: "linux"}},
		TaskGroups: []*structs.TaskGroup{{Name: "web",
			Constraints: []*structs.Constraint{{LTarget: "${attr.unique.hostname}", Operand: "!=", RTarget: "bad"}},
			Tasks:       []*structs.Task{{Name: "t", Driver: "raw_exec"}}}}}
}

func classNode(id, class, kernel string) *structs.Node {
	return &structs.Node{ID: id, ComputedClass: class, NodePool: "default",
		Attributes: map[string]string{"kernel.name": kernel, "unique.hostname": id}}
}

// TestConstraintClassCache proves the cacheable constraints are checked once
// per computed class: a node whose attributes contradict its class's cached
// verdict follows the cache, while escaped constraints and nodes without a
// class are checked each time.
func TestConstraintClassCache(t *testing.T) {
	job := classJob()
	c := newConstraintChecker(newEvalContext(nil, structs.NewPlan(&structs.Evaluation{}, job)), job)
	c.setTaskGroup(job.TaskGroups[0])
	check := func(n *structs.Node, want bool, wantReason string) {
		t.Helper()
		ok, reason := c.Feasible(n)
		if ok != want || reason != wantReason {
			t.Errorf("%s: %v %q, want %v %q", n.ID, ok, reason, want, wantReason)
		}
	}
	check(classNode("a", "c1", "linux"), true, "")
	check(classNode("b", "c1", "windows"), true, "") // from the cache
	check(classNode("c", "c2", "windows"), false, "${attr.kernel.name} = linux")
	check(classNode("d", "c2", "linux"), false, "${attr.kernel.name} = linux") // from the cache
	check(classNode("e", "", "windows"), false, "${attr.kernel.name} = linux") // no class: no cache
	check(classNode("bad", "c1", "linux"), false, "${attr.unique.hostname} != bad")
	other := classNode("f", "c1", "linux")
	other.NodePool = "gpu"
	check(other, false, reasonNodePool)

	e := &structs.Evaluation{}
	c.elig.fill(e)
	if !e.EscapedComputedClass || len(e.ClassEligibility) != 2 || !e.ClassEligibility["c1"] || e.ClassEligibility["c2"] {
		t.Errorf("eligibility: escaped=%v classes=%v", e.EscapedComputedClass, e.ClassEligibility)
	}
}

// TestConstraintCheckNoAlloc keeps the per-node check allocation-free once
// the class is cached (the benchmark's shape: set_contains_any and semver).
func TestConstraintCheckNoAlloc(t *testing.T) {
	job := classJob()
	job.TaskGroups[0].Constraints = []*structs.Constraint{
		{LTarget: "${meta.rack}", Operand: "set_contains_any", RTarget: "r0,r1,r2,r3,r4,r5,r6,r7,r8,r9,r10,r11,r12"},
		{LTarget: "${attr.consul.version}", Operand: "semver", RTarget: ">= 1.8.0"},
	}
	c := newConstraintChecker(newEvalContext(nil, structs.NewPlan(&structs.Evaluation{}, job)), job)
	c.setTaskGroup(job.TaskGroups[0])
	n := classNode("a", "c1", "linux")
	n.Attributes["consul.version"] = "1.9.1"
	n.Meta = map[string]string{"rack": "r7"}
	if ok, reason := c.Feasible(n); !ok {
		t.Fatalf("infeasible: %s", reason)
	}
	allocs := testing.AllocsPerRun(100, func() {
		c.setTaskGroup(job.TaskGroups[0])
		c.Feasible(n)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per check", allocs)
	}
}
