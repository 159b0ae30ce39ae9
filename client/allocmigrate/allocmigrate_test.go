package allocmigrate

import (
	"archive/tar"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o640); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotRestoreRoundTrip(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	write(t, filepath.Join(src, "alloc/data/db/rows"), "1,2,3")
	write(t, filepath.Join(src, "web/local/state"), "warm")
	write(t, filepath.Join(src, "web/secrets/token"), "not migrated")
	write(t, filepath.Join(src, "alloc/logs/web.stdout.0"), "not migrated")
	write(t, filepath.Join(src, "gone/local/x"), "task no longer in the group")
	if err := os.Symlink("db/rows", filepath.Join(src, "alloc/data/link")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Snapshot(&buf, src, []string{"web", "missing"}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dst, "alloc/data/db/rows"), "stale") // replaced
	if err := Restore(bytes.NewReader(buf.Bytes()), dst, []string{"web"}, 0); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"alloc/data/db/rows": "1,2,3", "web/local/state": "warm", "alloc/data/link": "1,2,3"} {
		if b, err := os.ReadFile(filepath.Join(dst, p)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", p, b, err, want)
		}
	}
	if st, err := os.Stat(filepath.Join(dst, "web/local/state")); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, %v", st.Mode(), err)
	}
	if l, err := os.Readlink(filepath.Join(dst, "alloc/data/link")); err != nil || l != "db/rows" {
		t.Errorf("symlink %q, %v", l, err)
	}
	for _, p := range []string{"web/secrets/token", "alloc/logs/web.stdout.0", "gone"} {
		if _, err := os.Lstat(filepath.Join(dst, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s restored: %v", p, err)
		}
	}
}

// tarOf builds a stream of entries: name -> content, or "->target" for a
// symlink, in the order given.
func tarOf(t *testing.T, entries ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{Name: e[0], Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(e[1]))}
		if len(e[1]) > 2 && e[1][:2] == "->" {
			hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeSymlink, e[1][2:], 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			tw.Write([]byte(e[1]))
		}
	}
	tw.Close()
	return buf.Bytes()
}

// A hostile stream (a compromised or buggy peer) writes nothing outside
// the migrated directories.
func TestRestoreRefusesEscapes(t *testing.T) {
	outside := t.TempDir()
	for _, tc := range []struct {
		name    string
		entries [][2]string
		want    error
	}{
		{"dotdot", [][2]string{{"alloc/data/../../x", "x"}}, ErrOutside},
		{"absolute", [][2]string{{"/etc/x", "x"}}, ErrOutside},
		{"other dir", [][2]string{{"web/secrets/x", "x"}}, ErrOutside},
		{"unknown task", [][2]string{{"db/local/x", "x"}}, ErrOutside},
		{"through a symlink", [][2]string{{"alloc/data/out", "->" + outside}, {"alloc/data/out/pwned", "x"}}, ErrSymlink},
		{"too large", [][2]string{{"alloc/data/a", "12345"}, {"alloc/data/b", "67890"}}, ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := t.TempDir()
			err := Restore(bytes.NewReader(tarOf(t, tc.entries...)), dst, []string{"web"}, 8)
			if !errors.Is(err, tc.want) {
				t.Fatalf("restore = %v, want %v", err, tc.want)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Fatalf("wrote outside: %v", entries)
			}
		})
	}
}
