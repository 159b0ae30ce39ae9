package state

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// smallState returns the bytes of a small valid state db (one alloc with
// one task state) written with the client's options.
func smallState(f *testing.F) []byte {
	path := filepath.Join(f.TempDir(), "state.db")
	db, err := Open(path)
	if err != nil {
		f.Fatal(err)
	}
	if err := db.PutAlloc(&structs.Allocation{ID: "a1", JobID: "j"}); err != nil {
		f.Fatal(err)
	}
	if err := db.PutTaskState("a1", "web", taskRec{Handle: []byte("h")}); err != nil {
		f.Fatal(err)
	}
	if err := db.Close(); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzOpenState: whatever bytes the state file holds, Open either opens
// it (and the stored allocations read back) or refuses it with
// ErrCorrupt; it never crashes the process (a SIGBUS or a panic on one of
// bbolt's goroutines would end the fuzzer).
func FuzzOpenState(f *testing.F) {
	valid := smallState(f)
	f.Add(valid)
	f.Add(valid[:4096])            // cut after the first meta page
	f.Add(valid[:len(valid)-4096]) // cut before the last page
	f.Add([]byte("nomadish"))
	zeroMeta := append([]byte(nil), valid...)
	clear(zeroMeta[:8192])
	f.Add(zeroMeta)
	badPage := append([]byte(nil), valid...)
	for i := 3 * 4096; i < len(badPage) && i < 3*4096+64; i++ {
		badPage[i] = 0xff
	}
	f.Add(badPage)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "state.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := Open(path)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open = %v, want nil or ErrCorrupt", err)
			}
			return
		}
		defer db.Close()
		if _, err := db.Allocs(); err != nil {
			t.Fatalf("opened db does not read back: %v", err)
		}
	})
}
