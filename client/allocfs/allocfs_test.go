package allocfs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// allocDir builds dir/{alloc/logs/t.stdout.0, t/local/} with symlinks:
// inside -> alloc/logs (stays in), outside -> a file beside the alloc
// dir, up -> "..".
func allocDir(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "alloc-1")
	for _, d := range []string{"alloc/logs", "t/local", "t/secrets", "alloc/data/secrets"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(dir, "alloc/logs/t.stdout.0"), []byte("hello\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(base, "secret"), []byte("outside\n"), 0o644))
	must(t, os.Symlink("alloc/logs", filepath.Join(dir, "inside")))
	must(t, os.Symlink(filepath.Join(base, "secret"), filepath.Join(dir, "t/local/outside")))
	must(t, os.Symlink("..", filepath.Join(dir, "up")))
	must(t, os.Symlink("../secrets", filepath.Join(dir, "t/local/sec")))
	return dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func code(err error) int {
	var ce *structs.CodedError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return 0
}

func TestResolveConfines(t *testing.T) {
	dir := allocDir(t)
	for _, tc := range []struct {
		path, want string
		code       int
	}{
		{"/", ".", 0},
		{"", ".", 0},
		{"alloc/logs", "alloc/logs", 0},
		{"/alloc/../alloc/logs/", "alloc/logs", 0},
		{"inside/t.stdout.0", "inside/t.stdout.0", 0},
		{"..", "", 400},
		{"../alloc-1/alloc", "", 400},
		{"alloc/../../secret", "", 400},
		{"/../../etc/passwd", "", 400},
		{"t/local/outside", "", 403},
		{"up", "", 403},
		{"up/secret", "", 403},
		{"nope", "", 404},
		{"t/secrets", "", 403},
		{"t/secrets/../local", "t/local", 0},
		{"t/local/sec", "", 403},
		{"alloc/data/secrets", "alloc/data/secrets", 0},
	} {
		got, err := Resolve(dir, tc.path)
		if got != tc.want || code(err) != tc.code {
			t.Errorf("Resolve(%q) = %q, %v; want %q, code %d", tc.path, got, err, tc.want, tc.code)
		}
	}
}

func TestListStatOpen(t *testing.T) {
	dir := allocDir(t)
	list, err := List(dir, "/")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range list {
		names[f.Name] = f.IsDir
	}
	if !names["alloc"] || !names["t"] || len(list) != 4 || list[0].Name != "alloc" {
		t.Fatalf("List(/) = %+v", list)
	}
	st, err := Stat(dir, "alloc/logs/t.stdout.0")
	if err != nil || st.Size != 6 || st.IsDir || st.ContentType != "text/plain; charset=utf-8" || st.FileMode != "-rw-r--r--" {
		t.Fatalf("Stat = %+v, %v", st, err)
	}
	f, err := Open(dir, "inside/t.stdout.0")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "hello\n" {
		t.Fatalf("Open read %q", b)
	}
	if _, err := Open(dir, "alloc"); !errors.Is(err, ErrIsDir) {
		t.Fatalf("Open(dir) = %v", err)
	}
	if _, err := List(dir, "alloc/logs/t.stdout.0"); code(err) != 400 {
		t.Fatalf("List(file) = %v", err)
	}
	for _, p := range []string{"t/local/outside", "../secret"} {
		if _, err := Open(dir, p); err == nil {
			t.Fatalf("Open(%q) escaped", p)
		}
		if _, err := Stat(dir, p); err == nil {
			t.Fatalf("Stat(%q) escaped", p)
		}
	}
}
