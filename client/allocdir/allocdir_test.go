package allocdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBuildAndDestroy(t *testing.T) {
	root := t.TempDir()
	d := New(root, "a1")
	if err := d.Build([]string{"web", "side"}); err != nil {
		t.Fatal(err)
	}
	if err := d.Build([]string{"web"}); err != nil {
		t.Fatalf("second build: %v", err)
	}
	for _, p := range []string{"alloc/logs", "alloc/data", "alloc/tmp", "web/local", "web/secrets", "web/tmp", "side/local"} {
		if fi, err := os.Stat(filepath.Join(root, "a1", p)); err != nil || !fi.IsDir() {
			t.Errorf("%s: not a dir (%v)", p, err)
		}
	}
	if got, want := d.LogPath("web", "stdout"), filepath.Join(root, "a1", "alloc", "logs", "web.stdout"); got != want {
		t.Errorf("LogPath = %q, want %q", got, want)
	}
	if err := d.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Dir); !os.IsNotExist(err) {
		t.Errorf("dir still there: %v", err)
	}
}
