package docker

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nomadish/nomadish/drivers/internal/hostpath"
)

// FuzzHostPathStaysInTheAllocDir: whatever a task writes as a volume's
// host path, with volumes disabled it is refused or resolves inside the
// allocation directory (symlinks to / and .. planted in the task dir).
func FuzzHostPathStaysInTheAllocDir(f *testing.F) {
	for _, s := range []string{"../../../../../../", "../../..", "data", "/etc", "local/up/x", "local/root/etc",
		"../alloc/data/../../..", "./local/../../web/data", "..", "local/dangling/x", "/", ""} {
		f.Add(s)
	}
	root := filepath.Join(f.TempDir(), "alloc-id")
	task := filepath.Join(root, "web")
	for _, d := range []string{"alloc/data", "web/local", "web/data"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for name, target := range map[string]string{"root": "/", "up": "../../../..", "dangling": "/nonexistent-nomadish"} {
		if err := os.Symlink(target, filepath.Join(task, "local", name)); err != nil {
			f.Fatal(err)
		}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		f.Fatal(err)
	}
	hp := newHostPaths(filepath.Join(root, "alloc"), task, false)
	f.Fuzz(func(t *testing.T, p string) {
		got, err := hp.resolve("volumes", p)
		if err != nil {
			return
		}
		if !hostpath.Within(got, realRoot) || got == realRoot {
			t.Fatalf("resolve(%q) = %q, outside %q", p, got, realRoot)
		}
	})
}
