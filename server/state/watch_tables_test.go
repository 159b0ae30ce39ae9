package state

import (
	"fmt"
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// fired reports whether any channel of ws is closed (non-blocking).
func fired(ws memdb.WatchSet) bool {
	for ch := range ws {
		select {
		case <-ch:
			return true
		default:
		}
	}
	return false
}

// WatchTables adds one channel per table however many rows the tables
// hold, reports their highest index, and fires on a write to one of them
// only (a snapshot's channels too). A table never written watches the
// nearest node of the index table, which also fires on other tables' first
// writes: a spurious wake-up, after which the query blocks again.
func TestWatchTablesOneChannelPerTable(t *testing.T) {
	s := testStore(t)
	ws := memdb.NewWatchSet()
	// Absent rows may share their nearest node's channel: at most 2.
	if idx, err := s.WatchTables(ws, TableJobs, TableAllocs); err != nil || idx != 0 || len(ws) == 0 || len(ws) > 2 {
		t.Fatalf("empty store: index %d, %d channels, %v; want 0, 1-2", idx, len(ws), err)
	}
	if err := s.UpsertJob(5, testJob("first"), nil); err != nil {
		t.Fatal(err)
	}
	if !fired(ws) {
		t.Fatal("the first write to jobs did not fire the watch taken before it")
	}
	job := testJob("j000")
	if err := s.UpsertAllocs(6, []*structs.Allocation{testAlloc(job, "node", structs.GenerateUUID())}); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := s.UpsertJob(uint64(10+i), testJob(fmt.Sprintf("j%03d", i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	snap := s.Snapshot()
	ws = memdb.NewWatchSet()
	idx, err := snap.WatchTables(ws, TableJobs, TableAllocs)
	if err != nil || idx != 109 || len(ws) != 2 {
		t.Fatalf("100 jobs: index %d, %d channels, %v; want 109, 2", idx, len(ws), err)
	}
	if err := s.UpsertNode(200, &structs.Node{ID: structs.GenerateUUID(), Name: "n", Status: structs.NodeStatusReady}); err != nil {
		t.Fatal(err)
	}
	if fired(ws) {
		t.Fatal("a nodes write fired a jobs/allocs watch")
	}
	if err := s.UpsertAllocs(201, []*structs.Allocation{testAlloc(job, "node", structs.GenerateUUID())}); err != nil {
		t.Fatal(err)
	}
	if !fired(ws) {
		t.Fatal("an allocs write did not fire the watch")
	}
}
