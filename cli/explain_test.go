package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func wantLines(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q; output:\n%s", what, want, out)
		}
	}
}

func TestJobPlanWhyNotNode(t *testing.T) {
	f := newFakeAPI(t)
	path := writeJob(t, goodJob)
	f.plan = &structs.JobPlanResponse{
		Annotations: &structs.PlanAnnotations{DesiredTGUpdates: map[string]*structs.DesiredUpdates{"g": {Place: 1}}},
		NodeVerdicts: map[string]*structs.NodeVerdict{
			"g": {NodeID: nodeID, NodeName: "dev", Failures: []string{`datacenter "dc1" not in the job's datacenters [dc9]`, "node is draining"},
				Exhausted: []string{"memory: asks 6000 MB, 2048 MB free of 16000 MB"}},
			"h": {NodeID: nodeID, NodeName: "dev", Feasible: true, Fits: true, Scores: map[string]float64{"binpack": 0.5, "final": 0.5}},
			"i": {NodeID: nodeID, NodeName: "dev", Feasible: true, Exhausted: []string{"cpu: asks 9000 MHz, 100 MHz free of 8000 MHz"},
				Preemptions: []string{"low.g[0] (job low, priority 10)"}},
		},
	}
	code, out, errOut := f.run("job", "plan", "-why-not-node", "n1n1", "-why-not-group", "g", path)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantLines(t, "why-not-node", out,
		`node "dev" (n1n1n1n1) is not feasible for group "g":`+"\n"+
			`  * datacenter "dc1" not in the job's datacenters [dc9]`+"\n"+
			"  * node is draining\n"+
			"  * exhausted memory: asks 6000 MB, 2048 MB free of 16000 MB\n",
		`node "dev" (n1n1n1n1) is feasible for group "h"; score 0.5 (binpack 0.5)`,
		`node "dev" (n1n1n1n1) is feasible for group "i" but lacks resources:`+"\n"+
			"  * exhausted cpu: asks 9000 MHz, 100 MHz free of 8000 MHz\n"+
			"  * would fit by preempting: low.g[0] (job low, priority 10)\n",
	)
	var body map[string]any
	f.mu.Lock()
	last := f.bodies[len(f.bodies)-1]
	f.mu.Unlock()
	if err := json.Unmarshal([]byte(last), &body); err != nil || body["WhyNotNode"] != "n1n1" || body["WhyNotGroup"] != "g" {
		t.Errorf("request body %s (%v)", last, err)
	}
	if code, _, errOut := f.run("job", "plan", "-why-not-group", "g", path); code != 255 || !strings.Contains(errOut, "needs -why-not-node") {
		t.Errorf("group without node: exit %d, %q", code, errOut)
	}
	f.plan.NodeVerdicts = nil
	if _, out, _ := f.run("job", "plan", "-why-not-node", "n1", path); !strings.Contains(out, `returned no verdict for node "n1"`) {
		t.Errorf("server without verdicts:\n%s", out)
	}
}

func TestJobPlanFailedPlacementExplained(t *testing.T) {
	f := newFakeAPI(t)
	f.plan = &structs.JobPlanResponse{
		Annotations: &structs.PlanAnnotations{DesiredTGUpdates: map[string]*structs.DesiredUpdates{
			"g": {Place: 3, Stop: 1, DestructiveUpdate: 1, Preemptions: 2}}},
		FailedTGAllocs: map[string]*structs.AllocMetric{"g": {
			NodesEvaluated: 3, NodesInPool: 3, NodesFiltered: 2, NodesExhausted: 1, CoalescedFailures: 1,
			NodesAvailable:     map[string]int{"dc1": 3, "dc2": 0},
			ClassFiltered:      map[string]int{"gpu": 1},
			ConstraintFiltered: map[string]int{"${attr.kernel.name} = windows": 1},
			DimensionExhausted: map[string]int{"memory": 1},
		}},
	}
	code, out, _ := f.run("job", "plan", writeJob(t, goodJob))
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	wantLines(t, "plan", out,
		`+/- Task Group: "g" (3 create, 1 destroy, 1 create/destroy update, 2 preempt)`,
		`Task Group "g" (failed to place 2 allocations):`,
		"* Nodes evaluated: 3 (of 3 in pool), filtered: 2, exhausted: 1",
		"* Nodes available per datacenter: dc1=3, dc2=0",
		`* No nodes are available in datacenter "dc2"`,
		`* Class "gpu": 1 nodes excluded by filter`,
		`* Constraint "${attr.kernel.name} = windows": 1 nodes excluded by filter`,
		"* Resources exhausted on 1 nodes",
		`* Dimension "memory" exhausted on 1 nodes`,
	)
}

func TestAllocStatusVerbosePlacementMetrics(t *testing.T) {
	f := newFakeAPI(t)
	a := allocFixture(f, "t")
	a.Metrics = &structs.AllocMetric{NodesEvaluated: 2, NodesInPool: 2, NodesAvailable: map[string]int{"dc1": 2},
		ScoreMetaData: []*structs.NodeScoreMeta{
			{NodeID: nodeID, Scores: map[string]float64{"binpack": 0.8, "job-anti-affinity": -0.5}, NormScore: 0.15},
			{NodeID: "other-node", Scores: map[string]float64{"binpack": 0.25}, NormScore: 0.25},
		}}
	code, out, _ := f.run("alloc", "status", "-verbose", "a1a1")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	wantLines(t, "alloc status -verbose", out,
		"\nPlacement Metrics\n",
		"  * Nodes evaluated: 2 (of 2 in pool), filtered: 0, exhausted: 0",
		"Node                                  binpack  job-anti-affinity  final score\n",
		nodeID+"  0.8      -0.5               0.15\n",
		"other-node                            0.25     -                  0.25\n",
	)
	if _, out, _ := f.run("alloc", "status", "a1a1"); strings.Contains(out, "Placement Metrics") {
		t.Errorf("placement metrics without -verbose:\n%s", out)
	}
}

func TestJobStatusPlacementFailure(t *testing.T) {
	f := newFakeAPI(t)
	f.jobs = []*structs.JobListStub{{ID: "example", Type: "service", Status: "pending"}}
	f.job["example"] = &structs.Job{ID: "example", Name: "example", Type: "service", Status: "pending",
		TaskGroups: []*structs.TaskGroup{{Name: "g"}}}
	failed := eval(evalID, "complete")
	failed.CreateIndex = 5
	failed.FailedTGAllocs = map[string]*structs.AllocMetric{"g": {NodesEvaluated: 1, NodesExhausted: 1,
		DimensionExhausted: map[string]int{"memory": 1}}}
	failed.BlockedEval = blockID
	f.evals[evalID] = []*structs.Evaluation{failed}
	code, out, errOut := f.run("job", "status", "example")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "Placement Failure") {
		t.Errorf("placement failure shown with no blocked eval:\n%s", out)
	}
	blocked := eval(blockID, structs.EvalStatusBlocked)
	blocked.CreateIndex = 6
	f.evals[blockID] = []*structs.Evaluation{blocked}
	_, out, _ = f.run("job", "status", "example")
	wantLines(t, "job status", out,
		"\nPlacement Failure\nTask Group \"g\":\n  * Nodes evaluated: 1",
		`  * Dimension "memory" exhausted on 1 nodes`,
	)
	if strings.Index(out, "Placement Failure") > strings.Index(out, "\nAllocations") {
		t.Errorf("placement failure after the allocations:\n%s", out)
	}

	_, out, _ = f.run("eval", "status", evalID)
	wantLines(t, "eval status", out,
		"\nFailed Placements\n"+`Task Group "g" (failed to place 1 allocation):`,
		`  * Dimension "memory" exhausted on 1 nodes`,
		`Evaluation "b1b1b1b1" waiting for additional capacity to place remainder`,
	)
}
