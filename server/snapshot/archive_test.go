package snapshot

import (
	"archive/tar"
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/nomadish/nomadish/server/snapshot/snapshottest"
)

func TestSnapshotArchiveRefusesMalformed(t *testing.T) {
	meta, st, sums := snapshottest.WellFormed([]byte("state"))
	badSums := sums
	badSums.Body = bytes.Replace(sums.Body, []byte("  "+StateMember), []byte("  other"), 1)
	bigMeta := snapshottest.Member{Name: MetaMember, Body: make([]byte, maxArchiveMeta+1)}
	for name, archive := range map[string][]byte{
		"not gzip":        []byte("plain text"),
		"unknown member":  snapshottest.TarGz(t, meta, st, snapshottest.Member{Name: "../../etc/cron.d/x", Body: []byte("x")}, sums),
		"duplicate":       snapshottest.TarGz(t, meta, st, st, sums),
		"symlink":         snapshottest.TarGz(t, meta, snapshottest.Member{Name: StateMember, Type: tar.TypeSymlink}, sums),
		"missing sums":    snapshottest.TarGz(t, meta, st),
		"missing state":   snapshottest.TarGz(t, meta, sums),
		"sum mismatch":    snapshottest.TarGz(t, meta, st, badSums),
		"meta too large":  snapshottest.TarGz(t, bigMeta, st, sums),
		"declared 8 GiB":  snapshottest.Bomb(t, 8<<30, 1<<20),
		"truncated state": snapshottest.Bomb(t, 4<<20, 1<<20),
	} {
		dir := t.TempDir()
		arc, err := Read(bytes.NewReader(archive), dir, 64<<20)
		if !errors.Is(err, ErrArchive) {
			if arc != nil {
				_ = arc.Close()
			}
			t.Fatalf("%s: want ErrArchive, got %v", name, err)
		}
		snapshottest.NoTempFiles(t, dir)
	}
	dir := t.TempDir()
	arc, err := Read(bytes.NewReader(snapshottest.TarGz(t, meta, st, sums)), dir, 64<<20)
	if err != nil || arc.Meta.Index != 5 {
		t.Fatalf("well-formed archive: %v", err)
	}
	if err := arc.Close(); err != nil {
		t.Fatal(err)
	}
	snapshottest.NoTempFiles(t, dir)
}

// TestSnapshotArchiveBombBoundedMemory: a gzip bomb is refused past the
// cap with the heap allocating a small, fixed amount however much it
// decompresses (state.bin is streamed to disk, never held).
func TestSnapshotArchiveBombBoundedMemory(t *testing.T) {
	const capBytes = 96 << 20
	for _, tc := range []struct {
		name              string
		declared, written int64
		tooLarge          bool
	}{
		{"declares more than the cap", 1 << 40, 16 << 20, true},
		// Declares just under the cap, streams 80 MiB, then ends early.
		{"streams under the cap", capBytes - 4096, 80 << 20, false},
	} {
		archive := snapshottest.Bomb(t, tc.declared, tc.written)
		dir := t.TempDir()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		arc, err := Read(bytes.NewReader(archive), dir, capBytes)
		runtime.ReadMemStats(&after)
		if arc != nil {
			_ = arc.Close()
		}
		if !errors.Is(err, ErrArchive) || errors.Is(err, ErrTooLarge) != tc.tooLarge {
			t.Fatalf("%s: %v", tc.name, err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		if alloc > 16<<20 {
			t.Fatalf("%s: reading a %d-byte bomb allocated %d bytes", tc.name, len(archive), alloc)
		}
		t.Logf("%s: %d compressed bytes refused; %d bytes allocated while reading", tc.name, len(archive), alloc)
		snapshottest.NoTempFiles(t, dir)
	}
}

func TestCapReader(t *testing.T) {
	for _, tc := range []struct {
		size, limit int64
		tooLarge    bool
	}{{10, 10, false}, {11, 10, true}, {0, 0, false}, {1, 0, true}} {
		r := &capReader{r: bytes.NewReader(make([]byte, tc.size)), left: tc.limit}
		_, err := bytes.NewBuffer(nil).ReadFrom(r)
		if errors.Is(err, ErrTooLarge) != tc.tooLarge {
			t.Fatalf("size %d limit %d: %v", tc.size, tc.limit, err)
		}
	}
}

// FuzzReadSnapshotArchive: no archive makes the reader panic, go past its
// cap, or leave a file behind; what it accepts passed its checksums.
func FuzzReadSnapshotArchive(f *testing.F) {
	meta, st, sums := snapshottest.WellFormed([]byte("state"))
	f.Add(snapshottest.TarGz(f, meta, st, sums))
	f.Add(snapshottest.TarGz(f, meta, st, st, sums))
	f.Add(snapshottest.TarGz(f, meta, snapshottest.Member{Name: StateMember, Type: tar.TypeSymlink}, sums))
	f.Add(snapshottest.Bomb(f, 1<<40, 1<<20))
	f.Add(snapshottest.Bomb(f, 2<<20, 2<<20))
	f.Add([]byte{0x1f, 0x8b})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, archive []byte) {
		arc, err := Read(bytes.NewReader(archive), dir, 1<<20)
		if err == nil {
			fi, serr := arc.State.Stat()
			if serr != nil || fi.Size() != arc.Meta.Size || fi.Size() > 1<<20 {
				t.Fatalf("accepted state: %v size %d meta %d", serr, fi.Size(), arc.Meta.Size)
			}
			if err := arc.Close(); err != nil {
				t.Fatal(err)
			}
		} else if !errors.Is(err, ErrArchive) {
			t.Fatalf("error not wrapping ErrArchive: %v", err)
		}
		snapshottest.NoTempFiles(t, dir)
	})
}
