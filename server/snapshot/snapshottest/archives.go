// Package snapshottest builds snapshot archives by hand for tests: well
// formed, malformed and gzip bombs.
package snapshottest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
)

// The archive's member names (snapshot.MetaMember, StateMember and
// SumsMember; repeated here so that the snapshot package's own tests can
// use these helpers).
const (
	metaMember  = "meta.json"
	stateMember = "state.bin"
	sumsMember  = "SHA256SUMS"
)

// Member is one tar member of a hand-made archive.
type Member struct {
	Name string
	Body []byte
	Type byte // 0: a regular file
}

// TarGz builds a gzipped tar of ms.
func TarGz(t testing.TB, ms ...Member) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range ms {
		typ := m.Type
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: m.Name, Mode: 0o600, Size: int64(len(m.Body)), Typeflag: typ}
		if typ != tar.TypeReg {
			h.Size, h.Linkname = 0, "/etc/passwd"
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(memberBody(h, m.Body)); err != nil {
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

func memberBody(h *tar.Header, b []byte) []byte {
	if h.Typeflag != tar.TypeReg {
		return nil
	}
	return b
}

// WellFormed returns the three members of a valid archive around state.
func WellFormed(state []byte) (meta, st, sums Member) {
	mb, _ := json.Marshal(&raft.SnapshotMeta{ID: "x", Index: 5, Term: 1, Size: int64(len(state))})
	line := func(name string, b []byte) string {
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:]) + "  " + name + "\n"
	}
	return Member{Name: metaMember, Body: mb}, Member{Name: stateMember, Body: state},
		Member{Name: sumsMember, Body: []byte(line(metaMember, mb) + line(stateMember, state))}
}

// Bomb is a gzipped tar whose state.bin header declares declared bytes,
// followed by written zero bytes (at most declared; then the stream ends): generated
// streaming, 1 MiB at a time, at best compression (about 1000:1).
func Bomb(t testing.TB, declared, written int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: stateMember, Mode: 0o600, Size: declared, Typeflag: tar.TypeReg}); err != nil {
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

// NoTempFiles fails when dir holds a restore's temporary file.
func NoTempFiles(t *testing.T, dir string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(dir, "snapshot-restore-*"))
	if len(left) > 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}
