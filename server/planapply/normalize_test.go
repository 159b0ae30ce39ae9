package planapply_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
)

// TestPlacementsCarryTheJobOnce: the raft entry of a plan holds its job
// once (req.Job), not once per placed allocation; the plan's own
// allocations keep their job, and one of another job version keeps its.
func TestPlacementsCarryTheJobOnce(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 100000, 100000))
	a := start(t, store)
	p := newPlan("e1", 50)
	p.Job.TaskGroups = []*structs.TaskGroup{{Name: "web", Count: 100, Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec",
		Config: map[string]any{"command": "/bin/sleep", "args": []string{"3600"}}, Resources: &structs.Resources{CPU: 1, MemoryMB: 10}}}}}
	var mine []*structs.Allocation
	for i := range 100 {
		al := planapplytest.Alloc(fmt.Sprintf("a%03d", i), "n1", 1, 10)
		al.Job = p.Job
		mine = append(mine, al)
		p.AppendAlloc(al)
	}
	older := *p.Job
	older.Version = 7
	other := planapplytest.Alloc("b", "n1", 1, 10)
	other.Job = &older
	p.AppendAlloc(other)
	if _, err := a.Submit(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	commits := store.Commits()
	if len(commits) != 1 {
		t.Fatalf("%d commits, want 1", len(commits))
	}
	req := commits[0]
	if req.Job != p.Job || len(req.AllocsPlaced) != 101 {
		t.Fatalf("entry job %p (want %p), %d placed", req.Job, p.Job, len(req.AllocsPlaced))
	}
	for _, al := range req.AllocsPlaced {
		if al.ID == "b" {
			if al.Job != &older {
				t.Errorf("alloc of another job version lost its job")
			}
		} else if al.Job != nil {
			t.Errorf("alloc %s carries the job in the entry", al.ID)
		}
	}
	for _, al := range mine {
		if al.Job != p.Job {
			t.Fatalf("the plan's alloc %s lost its job", al.ID)
		}
	}
	job, err := structs.Encode(structs.ApplyPlanResultsRequestType, p.Job)
	if err != nil {
		t.Fatal(err)
	}
	entry, err := structs.Encode(structs.ApplyPlanResultsRequestType, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(entry) > 3*len(job)+101*1500 {
		t.Errorf("entry of 101 placements is %d bytes, the job %d: the job is encoded per allocation", len(entry), len(job))
	}
	snap, _ := store.Snapshot()
	got, _ := snap.LiveAllocsByNode("n1")
	for _, al := range got {
		if al.Job == nil {
			t.Fatalf("committed alloc %s has no job", al.ID)
		}
	}
}
