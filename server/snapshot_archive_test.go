package server

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/structs"
)

// member is one tar member of a hand-made archive.
type member struct {
	name string
	body []byte
	typ  byte // 0: a regular file
}

// tarGz builds a gzipped tar of ms.
func tarGz(t testing.TB, ms ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range ms {
		typ := m.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: m.name, Mode: 0o600, Size: int64(len(m.body)), Typeflag: typ}
		if typ != tar.TypeReg {
			h.Size, h.Linkname = 0, "/etc/passwd"
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(h2body(h, m.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func h2body(h *tar.Header, b []byte) []byte {
	if h.Typeflag != tar.TypeReg {
		return nil
	}
	return b
}

// wellFormed returns the three members of a valid archive around state.
func wellFormed(state []byte) (meta, st, sums member) {
	mb, _ := json.Marshal(&raft.SnapshotMeta{ID: "x", Index: 5, Term: 1, Size: int64(len(state))})
	line := func(name string, b []byte) string {
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:]) + "  " + name + "\n"
	}
	return member{name: archiveMeta, body: mb}, member{name: archiveState, body: state},
		member{name: archiveSums, body: []byte(line(archiveMeta, mb) + line(archiveState, state))}
}

// bomb is a gzipped tar whose state.bin header declares declared bytes,
// followed by written zero bytes (at most declared; then the stream ends): generated
// streaming, 1 MiB at a time, at best compression (about 1000:1).
func bomb(t testing.TB, declared, written int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: archiveState, Mode: 0o600, Size: declared, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for left := min(written, declared); left > 0; left -= int64(len(zeros)) {
		if _, err := tw.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := gz.Close(); err != nil { // the tar is left unfinished
		t.Fatal(err)
	}
	return buf.Bytes()
}

// noTempFiles fails when dir holds a restore's temporary file.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(dir, "snapshot-restore-*"))
	if len(left) > 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

func TestSnapshotArchiveRefusesMalformed(t *testing.T) {
	meta, st, sums := wellFormed([]byte("state"))
	badSums := sums
	badSums.body = bytes.Replace(sums.body, []byte("  "+archiveState), []byte("  other"), 1)
	bigMeta := member{name: archiveMeta, body: make([]byte, maxArchiveMeta+1)}
	for name, archive := range map[string][]byte{
		"not gzip":        []byte("plain text"),
		"unknown member":  tarGz(t, meta, st, member{name: "../../etc/cron.d/x", body: []byte("x")}, sums),
		"duplicate":       tarGz(t, meta, st, st, sums),
		"symlink":         tarGz(t, meta, member{name: archiveState, typ: tar.TypeSymlink}, sums),
		"missing sums":    tarGz(t, meta, st),
		"missing state":   tarGz(t, meta, sums),
		"sum mismatch":    tarGz(t, meta, st, badSums),
		"meta too large":  tarGz(t, bigMeta, st, sums),
		"declared 8 GiB":  bomb(t, 8<<30, 1<<20),
		"truncated state": bomb(t, 4<<20, 1<<20),
	} {
		dir := t.TempDir()
		arc, err := readSnapshotArchive(bytes.NewReader(archive), dir, 64<<20)
		if !errors.Is(err, ErrSnapshotArchive) {
			if arc != nil {
				_ = arc.Close()
			}
			t.Fatalf("%s: want ErrSnapshotArchive, got %v", name, err)
		}
		noTempFiles(t, dir)
	}
	dir := t.TempDir()
	arc, err := readSnapshotArchive(bytes.NewReader(tarGz(t, meta, st, sums)), dir, 64<<20)
	if err != nil || arc.Meta.Index != 5 {
		t.Fatalf("well-formed archive: %v", err)
	}
	if err := arc.Close(); err != nil {
		t.Fatal(err)
	}
	noTempFiles(t, dir)
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
		archive := bomb(t, tc.declared, tc.written)
		dir := t.TempDir()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		arc, err := readSnapshotArchive(bytes.NewReader(archive), dir, capBytes)
		runtime.ReadMemStats(&after)
		if arc != nil {
			_ = arc.Close()
		}
		if !errors.Is(err, ErrSnapshotArchive) || errors.Is(err, ErrSnapshotTooLarge) != tc.tooLarge {
			t.Fatalf("%s: %v", tc.name, err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		if alloc > 16<<20 {
			t.Fatalf("%s: reading a %d-byte bomb allocated %d bytes", tc.name, len(archive), alloc)
		}
		t.Logf("%s: %d compressed bytes refused; %d bytes allocated while reading", tc.name, len(archive), alloc)
		noTempFiles(t, dir)
	}
}

func TestCapReader(t *testing.T) {
	for _, tc := range []struct {
		size, limit int64
		tooLarge    bool
	}{{10, 10, false}, {11, 10, true}, {0, 0, false}, {1, 0, true}} {
		r := &capReader{r: bytes.NewReader(make([]byte, tc.size)), left: tc.limit}
		_, err := bytes.NewBuffer(nil).ReadFrom(r)
		if errors.Is(err, ErrSnapshotTooLarge) != tc.tooLarge {
			t.Fatalf("size %d limit %d: %v", tc.size, tc.limit, err)
		}
	}
}

// TestOperatorSnapshotRestoreRefusesBombs: over the RPC, a bomb and an
// archive whose state does not decode are refused with 400 before raft
// restores anything; the state is unchanged, no file is left in the data
// dir, and a real snapshot still restores.
func TestOperatorSnapshotRestoreRefusesBombs(t *testing.T) {
	dir := t.TempDir()
	s := startRaftServer(t, dir, RaftConfig{})
	defer s.Shutdown()
	s.cfg.SnapshotRestoreMaxBytes = 32 << 20
	registerJob(t, s, mockJob("kept"))
	var saved structs.SnapshotSaveResponse
	if err := s.RPC(structs.OperatorSnapshotSaveRPC, &structs.GenericRequest{}, &saved); err != nil {
		t.Fatal(err)
	}
	registerJob(t, s, mockJob("extra"))
	store := s.State() // a restore replaces the store
	meta, st, sums := wellFormed([]byte("\x93not the state's encoding"))
	for name, archive := range map[string][]byte{
		"bomb over the cap":         bomb(t, 1<<40, 4<<20),
		"bomb streaming to the cap": bomb(t, 32<<20-1024, 40<<20),
		"undecodable state":         tarGz(t, meta, st, sums),
	} {
		var rr structs.SnapshotRestoreResponse
		err := s.RPC(structs.OperatorSnapshotRestoreRPC, &structs.SnapshotRestoreRequest{Archive: archive}, &rr)
		if errCode(err) != structs.ErrCodeBadRequest {
			t.Fatalf("%s: %v, want a 400 coded error", name, err)
		}
		if j, _ := s.State().JobByID(nil, "default", "extra"); j == nil || s.State() != store {
			t.Fatalf("%s: a refused restore changed the state", name)
		}
		noTempFiles(t, dir)
	}
	var rr structs.SnapshotRestoreResponse
	if err := s.RPC(structs.OperatorSnapshotRestoreRPC, &structs.SnapshotRestoreRequest{Archive: saved.Archive}, &rr); err != nil {
		t.Fatal(err)
	}
	if j, _ := s.State().JobByID(nil, "default", "extra"); j != nil {
		t.Fatalf("restore did not apply: %v", j.ID)
	}
	noTempFiles(t, dir)
}

// FuzzReadSnapshotArchive: no archive makes the reader panic, go past its
// cap, or leave a file behind; what it accepts passed its checksums.
func FuzzReadSnapshotArchive(f *testing.F) {
	meta, st, sums := wellFormed([]byte("state"))
	f.Add(tarGz(f, meta, st, sums))
	f.Add(tarGz(f, meta, st, st, sums))
	f.Add(tarGz(f, meta, member{name: archiveState, typ: tar.TypeSymlink}, sums))
	f.Add(bomb(f, 1<<40, 1<<20))
	f.Add(bomb(f, 2<<20, 2<<20))
	f.Add([]byte{0x1f, 0x8b})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, archive []byte) {
		arc, err := readSnapshotArchive(bytes.NewReader(archive), dir, 1<<20)
		if err == nil {
			fi, serr := arc.State.Stat()
			if serr != nil || fi.Size() != arc.Meta.Size || fi.Size() > 1<<20 {
				t.Fatalf("accepted state: %v size %d meta %d", serr, fi.Size(), arc.Meta.Size)
			}
			if err := arc.Close(); err != nil {
				t.Fatal(err)
			}
		} else if !errors.Is(err, ErrSnapshotArchive) {
			t.Fatalf("error not wrapping ErrSnapshotArchive: %v", err)
		}
		noTempFiles(t, dir)
	})
}
