package state

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// checkNodeUsage holds node_usage to its definition: for every node, the
// row equals the sum and count of its live allocations, and no row is left
// for a node without any.
func checkNodeUsage(t *testing.T, s *StateStore, nodes []string, step string) {
	t.Helper()
	snap := s.Snapshot()
	for _, n := range nodes {
		live, err := snap.AllocsByNodeTerminal(nil, n, false)
		if err != nil {
			t.Fatal(err)
		}
		var want structs.ComparableResources
		for _, a := range live {
			want.Add(a.AllocatedResources.Comparable())
		}
		got, count, err := snap.NodeLiveUsage(n)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || count != len(live) {
			t.Fatalf("%s: node %s usage %+v over %d allocs, want %+v over %d", step, n, got, count, want, len(live))
		}
		// The alloc watch's index covers every allocation of the node.
		all, err := snap.AllocsByNode(nil, n)
		if err != nil {
			t.Fatal(err)
		}
		idx, err := snap.NodeAllocsIndex(nil, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range all {
			if a.AllocModifyIndex > idx {
				t.Fatalf("%s: node %s alloc index %d below alloc %s's %d", step, n, idx, a.ID, a.AllocModifyIndex)
			}
		}
	}
}

func usageAlloc(r *rand.Rand, id, node string) *structs.Allocation {
	return &structs.Allocation{ID: id, Namespace: "default", JobID: "j", EvalID: "e", NodeID: node, TaskGroup: "g",
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
		AllocatedResources: &structs.AllocatedResources{
			Tasks: map[string]*structs.AllocatedTaskResources{"t": {
				Cpu:    structs.AllocatedCpuResources{CpuShares: int64(100 + r.Intn(900))},
				Memory: structs.AllocatedMemoryResources{MemoryMB: int64(64 + r.Intn(512))}}},
			Shared: structs.AllocatedSharedResources{DiskMB: int64(r.Intn(300))}}}
}

// TestNodeUsageFollowsEveryAllocWrite: placements, in-place resizes,
// client reports (running, then terminal), stops, desired transitions and
// garbage collection, in random order, keep each node's row equal to the
// sum of its live allocations; a snapshot restore rebuilds the same rows.
func TestNodeUsageFollowsEveryAllocWrite(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		r := rand.New(rand.NewSource(seed))
		s, err := New(nil)
		if err != nil {
			t.Fatal(err)
		}
		nodes := []string{"n1", "n2", "n3", "n4"}
		var ids []string
		index := uint64(100)
		for step := 0; step < 300; step++ {
			index++
			var err error
			var what string
			switch op := r.Intn(7); {
			case op <= 1 || len(ids) == 0:
				what = "place"
				var batch []*structs.Allocation
				for k := 0; k < 1+r.Intn(4); k++ {
					id := fmt.Sprintf("a%04d", len(ids))
					ids = append(ids, id)
					batch = append(batch, usageAlloc(r, id, nodes[r.Intn(len(nodes))]))
				}
				err = s.UpsertAllocs(index, batch)
			case op == 2:
				what = "resize in place"
				old, _ := s.Snapshot().AllocByID(nil, ids[r.Intn(len(ids))])
				if old != nil {
					err = s.UpsertAllocs(index, []*structs.Allocation{usageAlloc(r, old.ID, old.NodeID)})
				}
			case op == 3:
				what = "client report"
				status := []string{structs.AllocClientStatusRunning, structs.AllocClientStatusComplete,
					structs.AllocClientStatusFailed}[r.Intn(3)]
				err = s.UpdateAllocsFromClient(index, []*structs.Allocation{{ID: ids[r.Intn(len(ids))], ClientStatus: status}}, nil)
			case op == 4:
				what = "stop"
				a, _ := s.Snapshot().AllocByID(nil, ids[r.Intn(len(ids))])
				if a != nil {
					err = s.UpsertPlanResults(index, &structs.ApplyPlanResultsRequest{AllocsStopped: []*structs.Allocation{{
						ID: a.ID, NodeID: a.NodeID, DesiredStatus: structs.AllocDesiredStatusStop}}})
				}
			case op == 5:
				what = "desired transition"
				yes := true
				err = s.UpdateAllocsDesiredTransitions(index, map[string]*structs.DesiredTransition{
					ids[r.Intn(len(ids))]: {Migrate: &yes}}, nil)
			default:
				what = "gc"
				_, err = s.ReapGC(index, &structs.GCReapRequest{Allocs: []string{ids[r.Intn(len(ids))]}})
			}
			if err != nil {
				t.Fatalf("seed %d step %d (%s): %v", seed, step, what, err)
			}
			checkNodeUsage(t, s, nodes, fmt.Sprintf("seed %d step %d (%s)", seed, step, what))
		}
		var buf bytes.Buffer
		if err := s.Snapshot().Persist(&buf); err != nil {
			t.Fatal(err)
		}
		restored, err := Restore(&buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkNodeUsage(t, restored, nodes, fmt.Sprintf("seed %d restored", seed))
	}
}

// TestNodeRowGoesWithItsNode: a deleted node's row goes with it once none
// of its allocations is live, and stays (still right) while one is.
func TestNodeRowGoesWithItsNode(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	for i, n := range []string{"idle", "busy"} {
		if err := s.UpsertNode(uint64(10+i), &structs.Node{ID: n, Status: structs.NodeStatusReady}); err != nil {
			t.Fatal(err)
		}
	}
	done := usageAlloc(r, "a-done", "idle")
	done.ClientStatus = structs.AllocClientStatusComplete
	if err := s.UpsertAllocs(20, []*structs.Allocation{done, usageAlloc(r, "a-live", "busy")}); err != nil {
		t.Fatal(err)
	}
	rows := func() map[string]bool {
		it, err := s.Snapshot().db.Txn(false).Get(tableNodeUsage, "id")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			out[raw.(*NodeUsage).NodeID] = true
		}
		return out
	}
	if got := rows(); !got["idle"] || !got["busy"] {
		t.Fatalf("rows before: %v", got)
	}
	for i, n := range []string{"idle", "busy"} {
		if err := s.DeleteNode(uint64(30+i), n); err != nil {
			t.Fatal(err)
		}
	}
	if got := rows(); got["idle"] || !got["busy"] {
		t.Fatalf("rows after deleting both nodes: %v, want only busy's (a live allocation)", got)
	}
	checkNodeUsage(t, s, []string{"busy"}, "after the deletes")
	// Without a row, idle's alloc watch answers in full (index 0: unknown).
	if idx, err := s.Snapshot().NodeAllocsIndex(nil, "idle"); err != nil || idx != 0 {
		t.Fatalf("idle's alloc index without a row: %d %v, want 0", idx, err)
	}
}
