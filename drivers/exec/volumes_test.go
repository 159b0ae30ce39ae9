package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/base"
)

// hostDir returns a directory outside the test's 0700 temp dirs, so the
// task's user (nobody) can reach it, holding file "hello" with content s.
func hostDir(t *testing.T, s string, mode os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "nomadish-vol-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "hello"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A read-only host volume is bound at its destination under the task dir:
// the task reads its file and cannot write it; a read-write one takes the
// task's writes, which land in the host dir. Nothing is mounted on the host.
func TestHostVolumeMounts(t *testing.T) {
	requireRoot(t)
	ro, rw := hostDir(t, "from the host", 0o755), hostDir(t, "", 0o777)
	cfg := task(t, `cat data/hello; echo; if echo x > data/hello 2>/dev/null; then echo RO-WRITTEN; else echo ro-refused; fi
echo task-wrote > out/nested/w && echo rw-ok`)
	cfg.Mounts = []base.MountConfig{
		{TaskPath: "/data", HostPath: ro, Readonly: true, Volume: "certs"},
		{TaskPath: "/out/nested", HostPath: rw, Volume: "scratch"},
	}
	d := New(nil)
	start(t, d, cfg)
	if res := wait(t, d, cfg.ID); !res.Successful() {
		t.Fatalf("exit %+v; stdout %q stderr %q", res, readLog(cfg.StdoutPath), readLog(cfg.StderrPath))
	}
	out := readLog(cfg.StdoutPath)
	for _, want := range []string{"from the host", "ro-refused", "rw-ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout %q lacks %q (stderr %q)", out, want, readLog(cfg.StderrPath))
		}
	}
	if strings.Contains(out, "RO-WRITTEN") {
		t.Errorf("the task wrote a read-only volume: %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(ro, "hello")); string(b) != "from the host" {
		t.Errorf("read-only host file now %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(rw, "w")); string(b) != "task-wrote\n" {
		t.Errorf("read-write volume: host file %q", b)
	}
	// The binds lived in the task's mount namespace only.
	if entries, _ := os.ReadDir(filepath.Join(cfg.TaskDir, "data")); len(entries) != 0 {
		t.Errorf("mount point on the host is not empty: %v", entries)
	}
}

// A mount point the task turned into a symlink is refused: the driver never
// creates or mounts through it.
func TestHostVolumeSymlinkRefused(t *testing.T) {
	requireRoot(t)
	ro := hostDir(t, "x", 0o755)
	cfg := task(t, "true")
	if err := os.Symlink("/etc", filepath.Join(cfg.TaskDir, "data")); err != nil {
		t.Fatal(err)
	}
	cfg.Mounts = []base.MountConfig{{TaskPath: "/data/sub", HostPath: ro, Readonly: true, Volume: "v"}}
	_, err := New(nil).StartTask(cfg)
	if err == nil || !strings.Contains(err.Error(), "is a symlink") {
		t.Fatalf("start = %v, want a symlink refusal", err)
	}
	if _, err := os.Stat("/etc/sub"); err == nil {
		t.Fatal("a directory was created through the symlink")
	}
}
