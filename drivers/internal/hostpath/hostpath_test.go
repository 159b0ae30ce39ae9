package hostpath

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEvalExisting(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(dir, "root")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in, want string
		err      bool
	}{
		{in: filepath.Join(dir, "real", "not", "yet"), want: filepath.Join(dir, "real", "not", "yet")},
		{in: filepath.Join(dir, "root", "etc"), want: "/etc"},
		{in: filepath.Join(dir, "dangling", "x"), err: true},
	} {
		got, err := EvalExisting(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("EvalExisting(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		p, dir string
		want   bool
	}{
		{"/a/b", "/a", true},
		{"/a", "/a", true},
		{"/ab", "/a", false},
		{"/", "/a", false},
		{"/a/..b", "/a", true},
	} {
		if got := Within(tc.p, tc.dir); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.p, tc.dir, got, tc.want)
		}
	}
}
