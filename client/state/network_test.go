package state

import (
	"path/filepath"
	"testing"
)

func TestNetworkRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	type rec struct{ NSPath string }
	if ok, err := db.GetNetwork("a1", &rec{}); ok || err != nil {
		t.Fatalf("empty db: ok=%v err=%v", ok, err)
	}
	if err := db.PutNetwork("a1", rec{NSPath: "/var/run/netns/nomadish-a1"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = Open(path); err != nil { // survives a reopen (a client restart)
		t.Fatal(err)
	}
	defer db.Close()
	var got rec
	if ok, err := db.GetNetwork("a1", &got); !ok || err != nil || got.NSPath != "/var/run/netns/nomadish-a1" {
		t.Fatalf("got %+v ok=%v err=%v", got, ok, err)
	}
	ids, err := db.NetworkAllocIDs()
	if err != nil || len(ids) != 1 || ids[0] != "a1" {
		t.Fatalf("ids = %v, %v", ids, err)
	}
	// Deleting the alloc keeps the network record: it goes when torn down.
	if err := db.DeleteAlloc("a1"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := db.GetNetwork("a1", &got); !ok {
		t.Fatal("network record went with the alloc")
	}
	if err := db.DeleteNetwork("a1"); err != nil {
		t.Fatal(err)
	}
	if ids, _ := db.NetworkAllocIDs(); len(ids) != 0 {
		t.Fatalf("ids after delete = %v", ids)
	}
}
