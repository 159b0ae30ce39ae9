package cli

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestJobPlanListsPreemptions(t *testing.T) {
	f := newFakeAPI(t)
	f.plan = &structs.JobPlanResponse{Annotations: &structs.PlanAnnotations{
		DesiredTGUpdates: map[string]*structs.DesiredUpdates{"g": {Place: 1, Preemptions: 1}},
		PreemptedAllocs:  []*structs.AllocListStub{{ID: allocID, JobID: "low", TaskGroup: "batch"}},
	}}
	_, out, _ := f.run("job", "plan", writeJob(t, goodJob))
	want := "Preemptions:\n\nAlloc ID  Job ID  Task Group\na1a1a1a1  low     batch\n"
	if !strings.Contains(out, want) {
		t.Fatalf("output lacks %q:\n%s", want, out)
	}
}

func TestAllocPreemptionPairs(t *testing.T) {
	if p := allocPreemptionPairs(&structs.Allocation{}, false); len(p) != 0 {
		t.Fatalf("an alloc preemption played no part in: %v", p)
	}
	a := &structs.Allocation{PreemptedByAllocation: allocID, PreemptedAllocations: []string{evalID, nodeID}}
	got := strings.Join(allocPreemptionPairs(a, false), "|")
	if want := "Preempted By Allocation|a1a1a1a1|Preempted Allocations|e1e1e1e1, n1n1n1n1"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
