package state

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// bigState writes a state db of a few MB (many allocations with padded
// task states) and returns its path and size.
func bigState(t *testing.T) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "client", "state.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 8<<10)
	for i := range 300 {
		id := structs.GenerateUUID()
		if err := db.PutAlloc(&structs.Allocation{ID: id, JobID: "j", ClientDescription: pad}); err != nil {
			t.Fatal(err)
		}
		if err := db.PutTaskState(id, "web", taskRec{Handle: []byte(pad), State: &structs.TaskState{Restarts: uint64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, fi.Size()
}

// TestCorruptStateMovedAside covers the classes of damage: a file cut
// short of its pages (the SIGBUS case), garbage, zeroed meta pages and
// one damaged data page. Each is refused by Open with ErrCorrupt and,
// by OpenOrReset, moved aside for a fresh, usable db.
func TestCorruptStateMovedAside(t *testing.T) {
	cases := map[string]func(t *testing.T, path string, size int64){
		"truncated": func(t *testing.T, path string, size int64) {
			if err := os.Truncate(path, size/3); err != nil {
				t.Fatal(err)
			}
		},
		"truncated to one page": func(t *testing.T, path string, size int64) {
			if err := os.Truncate(path, 4096); err != nil {
				t.Fatal(err)
			}
		},
		"garbage": func(t *testing.T, path string, size int64) {
			if err := os.WriteFile(path, bytes.Repeat([]byte("nomadish"), 1<<17), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"zeroed metas": func(t *testing.T, path string, size int64) {
			writeAt(t, path, 0, make([]byte, 2*4096))
		},
		"damaged pages": func(t *testing.T, path string, size int64) {
			junk := bytes.Repeat([]byte{0xff, 0x13, 0x00, 0x7f}, 4096)
			for off := int64(4 * 4096); off+int64(len(junk)) < size; off += 64 << 10 {
				writeAt(t, path, off, junk)
			}
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			path, size := bigState(t)
			damage(t, path, size)
			before, _ := os.ReadFile(path)

			if _, err := Open(path); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open = %v, want ErrCorrupt", err)
			}
			now := time.Unix(1700000000, 0)
			db, reset, err := OpenOrReset(path, now)
			if err != nil {
				t.Fatalf("OpenOrReset: %v", err)
			}
			defer db.Close()
			if reset == nil || !errors.Is(reset.Reason, ErrCorrupt) {
				t.Fatalf("reset = %+v, want one with ErrCorrupt", reset)
			}
			if want := path + ".corrupt-1700000000"; reset.MovedTo != want {
				t.Fatalf("moved to %q, want %q", reset.MovedTo, want)
			}
			aside, err := os.ReadFile(reset.MovedTo)
			if err != nil || !bytes.Equal(aside, before) {
				t.Fatalf("corrupt file not kept as it was (%v)", err)
			}
			if allocs, err := db.Allocs(); err != nil || len(allocs) != 0 {
				t.Fatalf("fresh db allocs = %d, %v", len(allocs), err)
			}
			if err := db.PutAlloc(&structs.Allocation{ID: "a1"}); err != nil {
				t.Fatalf("fresh db not writable: %v", err)
			}
		})
	}
}

// TestHealthyStateNotMoved: an intact, an empty and a missing file open
// as they are.
func TestHealthyStateNotMoved(t *testing.T) {
	path, _ := bigState(t)
	db, reset, err := OpenOrReset(path, time.Now())
	if err != nil || reset != nil {
		t.Fatalf("intact file: reset %+v, err %v", reset, err)
	}
	if allocs, err := db.Allocs(); err != nil || len(allocs) != 300 {
		t.Fatalf("allocs = %d, %v", len(allocs), err)
	}
	db.Close()

	empty := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{empty, filepath.Join(t.TempDir(), "missing", "state.db")} {
		db, reset, err := OpenOrReset(p, time.Now())
		if err != nil || reset != nil {
			t.Fatalf("%s: reset %+v, err %v", p, reset, err)
		}
		db.Close()
	}
}

// TestLockedStateNotMoved: a file held by another open db is not corrupt
// and must not be moved aside.
func TestLockedStateNotMoved(t *testing.T) {
	path, _ := bigState(t)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, reset, err := OpenOrReset(path, time.Now()); err == nil || reset != nil || errors.Is(err, ErrCorrupt) {
		t.Fatalf("second open: reset %+v, err %v; want a plain error", reset, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("locked file moved: %v", err)
	}
}

// TestGuardedRecoversFault: a read past the end of a mapped file (SIGBUS)
// inside guarded is an ErrCorrupt error, not a crash.
func TestGuardedRecoversFault(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(1 << 16); err != nil {
		t.Fatal(err)
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, 1<<16, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	err = guarded("reading", func() error {
		faultSink = mem[1<<15]
		return nil
	})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("guarded = %v, want ErrCorrupt", err)
	}
}

var faultSink byte

func writeAt(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}
