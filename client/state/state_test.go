package state

import (
	"path/filepath"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

type taskRec struct {
	Handle []byte
	State  *structs.TaskState
}

func TestPersistAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "client", "state.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutAlloc(&structs.Allocation{ID: "a1", JobID: "j"}); err != nil {
		t.Fatal(err)
	}
	rec := taskRec{Handle: []byte("h"), State: &structs.TaskState{State: structs.TaskStateRunning, Restarts: 2}}
	if err := db.PutTaskState("a1", "web", rec); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	allocs, err := db.Allocs()
	if err != nil || len(allocs) != 1 || allocs[0].JobID != "j" {
		t.Fatalf("allocs = %v, %v", allocs, err)
	}
	var got taskRec
	ok, err := db.GetTaskState("a1", "web", &got)
	if err != nil || !ok {
		t.Fatalf("get: %v %v", ok, err)
	}
	if string(got.Handle) != "h" || got.State.Restarts != 2 || got.State.State != structs.TaskStateRunning {
		t.Fatalf("got %+v", got)
	}
	if ok, _ := db.GetTaskState("a1", "nope", &got); ok {
		t.Fatal("found a missing task")
	}
	if err := db.DeleteAlloc("a1"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteAlloc("a1"); err != nil {
		t.Fatalf("second delete: %v", err)
	}
	if ok, _ := db.GetTaskState("a1", "web", &got); ok {
		t.Fatal("task state survived DeleteAlloc")
	}
	if allocs, _ := db.Allocs(); len(allocs) != 0 {
		t.Fatalf("allocs after delete: %v", allocs)
	}
}
