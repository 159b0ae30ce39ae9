package execdriver

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/nomadish/nomadish/drivers/base"
)

// fakeTree writes files (path -> content) under a temp dir.
func fakeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDetectCgroups(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		v2, err bool
		sub     string // v2 root below the tree
	}{
		{name: "unified host, controllers delegated", files: map[string]string{"cgroup.subtree_control": "cpuset cpu io memory pids\n"}, v2: true},
		{name: "hybrid, v2 without controllers: v1", files: map[string]string{
			"unified/cgroup.subtree_control": "", "memory/memory.limit_in_bytes": "9223372036854771712"}},
		{name: "hybrid, controllers in unified", files: map[string]string{
			"unified/cgroup.subtree_control": "memory pids cpu"}, v2: true, sub: "unified"},
		{name: "v2 lacking pids, no v1", files: map[string]string{"cgroup.subtree_control": "cpu memory"}, err: true},
		{name: "nothing", files: map[string]string{"x": ""}, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := fakeTree(t, tc.files)
			l, err := detectCgroups(root)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v", err)
			}
			if tc.err {
				return
			}
			want := cgroupLayout{V2: tc.v2, Root: filepath.Join(root, tc.sub)}
			if l != want {
				t.Fatalf("layout = %+v, want %+v", l, want)
			}
		})
	}
}

// setupV2 on a fake unified tree: the parent delegates the controllers,
// the task's cgroup gets every limit; applyV2 (UpdateTask) rewrites them.
func TestSetupAndUpdateV2(t *testing.T) {
	root := fakeTree(t, map[string]string{
		"cgroup.subtree_control":          "cpuset cpu io memory pids",
		"nomadish/cpuset.mems.effective":  "0-1",
		"nomadish/cgroup.subtree_control": "",
	})
	l := cgroupLayout{V2: true, Root: root}
	res := base.Resources{CPUShares: 1024, MemoryMB: 64, MemoryMaxMB: 128, Cores: []uint16{1, 3}}
	paths, err := l.setup("alloc1/web", res, 512)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "nomadish", "alloc1_web")
	if !reflect.DeepEqual(paths, []string{dir}) {
		t.Fatalf("paths = %v", paths)
	}
	want := map[string]string{
		"memory.max": "134217728", "memory.low": "67108864", "cpu.weight": "39", "pids.max": "512",
		"cpuset.cpus": "1,3", "cpuset.mems": "0-1",
	}
	for f, v := range want {
		if got := readCgString(dir, f); got != v {
			t.Errorf("%s = %q, want %q", f, got, v)
		}
	}
	if got := readCgString(filepath.Join(root, "nomadish"), "cgroup.subtree_control"); got != "+memory +cpu +pids +cpuset" {
		t.Errorf("parent subtree_control = %q", got)
	}
	if err := updateCgroups(paths, true, base.Resources{CPUShares: 2, MemoryMB: 96}); err != nil {
		t.Fatal(err)
	}
	for f, v := range map[string]string{"memory.max": "100663296", "memory.low": "0", "cpu.weight": "1", "cpuset.cpus": "1,3"} {
		if got := readCgString(dir, f); got != v {
			t.Errorf("after update %s = %q, want %q", f, got, v)
		}
	}
	os.WriteFile(filepath.Join(dir, "memory.events"), []byte("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n"), 0o644)
	if !oomKilled(paths) {
		t.Error("memory.events oom_kill 1 not seen as OOM killed")
	}
}

func TestSharesToWeight(t *testing.T) {
	for shares, want := range map[int64]int64{0: 1, 2: 1, 1024: 39, 262144: 10000, 1 << 30: 10000} {
		if got := sharesToWeight(shares); got != want {
			t.Errorf("sharesToWeight(%d) = %d, want %d", shares, got, want)
		}
	}
}

func TestMountinfoAndReadOnlyTargets(t *testing.T) {
	text := `21 26 0:20 / /proc rw,relatime - proc proc rw
23 26 0:6 / /dev rw,nosuid,relatime - devtmpfs devtmpfs rw,mode=755
25 23 0:23 / /dev/pts rw,relatime - devpts devpts rw
24 23 0:22 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw
26 1 254:0 / / rw,relatime - ext4 /dev/vda rw
40 26 0:37 / /data/my\040dir rw,noexec,noatime - ext4 /dev/vdb rw
41 40 0:38 / /data/my\040dir/alloc/web/secrets rw,nodev - tmpfs tmpfs rw
`
	mounts, err := parseMountinfo(text)
	if err != nil {
		t.Fatal(err)
	}
	if mounts[5].Point != "/data/my dir" || !reflect.DeepEqual(mounts[5].Options, []string{"rw", "noexec", "noatime"}) {
		t.Fatalf("escaped mount = %+v", mounts[5])
	}
	var got []string
	for _, m := range readOnlyTargets(mounts, []string{"/data/my dir/alloc"}) {
		got = append(got, m.Point)
	}
	if want := []string{"/dev", "/", "/data/my dir"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("read-only targets = %q, want %q", got, want)
	}
	base := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY)
	if f := remountFlags(mounts[1].Options); f != base|syscall.MS_NOSUID|syscall.MS_RELATIME {
		t.Errorf("flags of /dev = %#x", f)
	}
	if f := remountFlags(mounts[5].Options); f != base|syscall.MS_NOEXEC|syscall.MS_NOATIME {
		t.Errorf("flags of /data = %#x", f)
	}
	if _, err := parseMountinfo("1 2 3\n"); err == nil {
		t.Error("short line accepted")
	}
}

func TestWritableDirs(t *testing.T) {
	for _, tc := range []struct {
		task, alloc string
		want        []string
	}{
		{"/d/a1/web", "/d/a1/alloc", []string{"/d/a1/web", "/d/a1/alloc"}},
		{"/d/x", "/d/x", []string{"/d/x"}},
		{"/d/x/", "/d/x/alloc", []string{"/d/x"}},
		{"/d/xy", "/d/x", []string{"/d/xy", "/d/x"}},
	} {
		got := writableDirs(&base.TaskConfig{TaskDir: tc.task, AllocDir: tc.alloc})
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("writableDirs(%q, %q) = %q, want %q", tc.task, tc.alloc, got, tc.want)
		}
	}
}

func TestLookupUser(t *testing.T) {
	u, err := lookupUser("")
	if err != nil || u.uid != 65534 {
		t.Fatalf("default user = %+v, %v", u, err)
	}
	if u, err := lookupUser("65534"); err != nil || u.uid != 65534 {
		t.Fatalf("numeric user = %+v, %v", u, err)
	}
	if _, err := lookupUser("root"); err == nil {
		t.Error("root accepted")
	}
	if _, err := lookupUser("no-such-user-xyz"); err == nil {
		t.Error("unknown user accepted")
	}
}

// A shared dir a task replaced with a symlink (say alloc/data -> a host
// dir) is not followed when the next task's dirs are prepared: the
// target's mode is unchanged and the preparation fails.
func TestPrepareDirsDoesNotFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	cfg := &base.TaskConfig{AllocDir: filepath.Join(dir, "alloc"), TaskDir: filepath.Join(dir, "web")}
	victim := filepath.Join(dir, "host-dir")
	for _, d := range []string{cfg.AllocDir, cfg.TaskDir, victim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(victim, filepath.Join(cfg.AllocDir, "data")); err != nil {
		t.Fatal(err)
	}
	u := &taskUser{uid: uint32(os.Getuid()), gid: uint32(os.Getgid())}
	if err := prepareDirs(cfg, u); err == nil {
		t.Error("prepareDirs followed a symlinked shared dir")
	}
	if st, err := os.Stat(victim); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("the symlink's target: %v %v, want mode 0755 unchanged", st.Mode(), err)
	}
}
