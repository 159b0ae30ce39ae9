package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// TestMain lets the test binary be the task init, as the nomadish binary
// is in production.
func TestMain(m *testing.M) {
	if IsInit(os.Args) {
		os.Exit(RunInit())
	}
	os.Exit(m.Run())
}

func TestEnabledByDefaultAsRoot(t *testing.T) {
	d := New(nil)
	fp, err := d.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wantHealthy := os.Geteuid() == 0
	if (fp.Health == base.HealthHealthy) != wantHealthy {
		t.Fatalf("fingerprint = %+v, root=%v", fp, wantHealthy)
	}
	if wantHealthy && (fp.Attributes["driver.exec"] != "1" || fp.Attributes["driver.exec.cgroups"] == "") {
		t.Fatalf("attributes = %v", fp.Attributes)
	}
	caps, err := d.Capabilities()
	if err != nil || !caps.SendSignals || caps.FSIsolation != base.FSIsolationNone || caps.ResourceLimits != wantHealthy {
		t.Fatalf("capabilities = %+v, %v", caps, err)
	}
	if err := d.SetConfig(map[string]any{"allow_caps": []any{"chown"}, "pids_limit": int64(100)}); err != nil {
		t.Fatalf("plugin keys rejected: %v", err)
	}
	if err := d.SetConfig(map[string]any{"pids_limit": "lots"}); err == nil || !strings.Contains(err.Error(), "pids_limit") {
		t.Fatalf("bad pids_limit: %v", err)
	}
}

// requireRoot fails (not skips): these tests run as root on this host and
// a gap must be seen.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("exec isolation tests need root")
	}
}

// task returns a config running script under /bin/sh with the client's
// layout under a 0700 temp dir (as a dev-mode data dir):
// <root>/alloc/{data,tmp,logs} and <root>/web/{local,secrets,tmp}.
func task(t *testing.T, script string) *base.TaskConfig {
	t.Helper()
	root := t.TempDir()
	alloc, dir := filepath.Join(root, "alloc"), filepath.Join(root, "web")
	for _, d := range []string{"alloc/data", "alloc/tmp", "alloc/logs", "web/local", "web/secrets", "web/tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &base.TaskConfig{
		ID: fmt.Sprintf("alloc-%d/web/%s", time.Now().UnixNano(), t.Name()), Name: "web",
		Env: map[string]string{"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "NOMAD_ALLOC_DIR": alloc,
			"NOMAD_TASK_DIR": filepath.Join(dir, "local"), "NOMAD_SECRETS_DIR": filepath.Join(dir, "secrets")},
		Config:    map[string]any{"command": "/bin/sh", "args": []any{"-c", script}},
		Resources: base.Resources{MemoryMB: 256, CPUShares: 100},
		AllocDir:  alloc, TaskDir: dir,
		StdoutPath: filepath.Join(alloc, "logs", "web.stdout"), StderrPath: filepath.Join(alloc, "logs", "web.stderr"),
	}
}

func start(t *testing.T, d base.Driver, cfg *base.TaskConfig) *base.TaskHandle {
	t.Helper()
	h, err := d.StartTask(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	return h
}

func wait(t *testing.T, d base.Driver, id string) *base.ExitResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch, err := d.WaitTask(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	res, ok := <-ch
	if !ok {
		t.Fatalf("task %s did not exit", id)
	}
	return res
}

func readLog(path string) string {
	b, _ := os.ReadFile(path + ".0")
	return string(b)
}

// waitForLog polls a real process's log until it has s.
func waitForLog(t *testing.T, path, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(readLog(path), s) {
		if time.Now().After(deadline) {
			t.Fatalf("log never had %q: %q (stderr %q)", s, readLog(path), readLog(strings.TrimSuffix(path, "stdout")+"stderr"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cgroupDir is the task's cgroup v1 dir of controller ctrl.
func cgroupDir(ctrl, taskID string) string {
	return filepath.Join("/sys/fs/cgroup", ctrl, "nomadish", strings.NewReplacer("/", "_", "..", "_", " ", "_").Replace(taskID))
}

// The task runs as nobody, as a child of the init (PID 1) of its own PID
// namespace, seeing only its own processes, and can write only its task
// dir (with secrets, local, tmp) and the alloc dir: not /etc, /usr, not
// even a world-writable host dir.
func TestTaskIsolated(t *testing.T) {
	requireRoot(t)
	d := New(nil)
	cfg := task(t, "")
	outside := filepath.Join(filepath.Dir(cfg.TaskDir), "outside")
	if err := os.Mkdir(outside, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(outside, 0o777)
	script := `echo "uid=$(id -u) ppid=$PPID"; echo "pid=$$"
echo "procs=$(ls /proc | grep -c '^[0-9]')"
for p in /etc/x /usr/x ` + outside + `/x /tmp/x; do
  if echo x 2>/dev/null >"$p"; then echo "wrote $p"; else echo "denied $p"; fi
done
for p in "$PWD/x" "$NOMAD_TASK_DIR/x" "$NOMAD_SECRETS_DIR/x" "$NOMAD_ALLOC_DIR/data/x" "$TMPDIR/x" /dev/shm/x; do
  if echo x 2>/dev/null >"$p"; then echo "wrote $p"; else echo "denied $p"; fi
done
echo "pwd=$PWD"; grep ' / ' /proc/self/mounts | cut -d' ' -f4 | cut -d, -f1 | sed 's/^/root=/'`
	cfg.Config["args"] = []any{"-c", script}
	start(t, d, cfg)
	res := wait(t, d, cfg.ID)
	out := readLog(cfg.StdoutPath)
	if !res.Successful() {
		t.Fatalf("result %+v; stdout %q stderr %q", res, out, readLog(cfg.StderrPath))
	}
	want := []string{
		"uid=65534 ppid=1",
		"denied /etc/x", "denied /usr/x", "denied " + outside + "/x", "denied /tmp/x",
		"wrote " + cfg.TaskDir + "/x", "wrote " + cfg.Env["NOMAD_TASK_DIR"] + "/x", "wrote " + cfg.Env["NOMAD_SECRETS_DIR"] + "/x",
		"wrote " + cfg.AllocDir + "/data/x", "wrote " + cfg.TaskDir + "/tmp/x", "wrote /dev/shm/x",
		"pwd=" + cfg.TaskDir, "root=ro",
	}
	for _, w := range want {
		if !strings.Contains(out, w+"\n") {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	// The init's threads take the first pids of the namespace.
	if i := strings.Index(out, "\npid="); i < 0 {
		t.Errorf("no pid: %q", out)
	} else if n, _ := strconv.Atoi(strings.Fields(out[i+5:])[0]); n < 2 || n > 16 {
		t.Errorf("task's pid %d is not one of a fresh PID namespace", n)
	}
	if i := strings.Index(out, "procs="); i < 0 {
		t.Errorf("no process count: %q", out)
	} else if n, _ := strconv.Atoi(strings.Fields(out[i+6:])[0]); n < 2 || n > 6 {
		t.Errorf("task sees %d processes in /proc, want only its own (init, sh, ls, grep)", n)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("the task wrote outside its dirs")
	}
	if b, err := os.ReadFile(filepath.Join(cfg.AllocDir, "data", "x")); err != nil || string(b) != "x\n" {
		t.Errorf("alloc dir write not on the host: %q %v", b, err)
	}
}

// A task allocating more than its memory is OOM-killed and the result
// says so.
func TestOOMKilled(t *testing.T) {
	requireRoot(t)
	d := New(nil)
	// tail -n 1 keeps the whole newline-free stream in memory.
	cfg := task(t, `head -c 300000000 /dev/zero | tail -n 1 >/dev/null; echo survived`)
	cfg.Resources.MemoryMB = 48
	start(t, d, cfg)
	res := wait(t, d, cfg.ID)
	if !res.OOMKilled || res.Successful() {
		t.Fatalf("result = %+v, want OOMKilled", res)
	}
}

// pids_limit becomes the task's pids.max and is enforced: a shell forking
// 40 sleeps fails to fork past it.
func TestPidsLimit(t *testing.T) {
	requireRoot(t)
	d := New(nil)
	if err := d.SetConfig(map[string]any{"pids_limit": int64(24)}); err != nil {
		t.Fatal(err)
	}
	cfg := task(t, `i=0; while [ $i -lt 40 ]; do sleep 30 & i=$((i+1)); done; echo all-forked`)
	start(t, d, cfg)
	res := wait(t, d, cfg.ID)
	if b, _ := os.ReadFile(filepath.Join(cgroupDir("pids", cfg.ID), "pids.max")); strings.TrimSpace(string(b)) != "24" {
		t.Fatalf("pids.max = %q, want 24", b)
	}
	if res.Successful() || strings.Contains(readLog(cfg.StdoutPath), "all-forked") ||
		!strings.Contains(readLog(cfg.StderrPath), "fork") {
		t.Errorf("forks past the limit: %+v, stdout %q, stderr %q", res, readLog(cfg.StdoutPath), readLog(cfg.StderrPath))
	}
}

// Reserved cores become the task's cpuset.
func TestCpuset(t *testing.T) {
	requireRoot(t)
	d := New(nil)
	cfg := task(t, `grep Cpus_allowed_list /proc/self/status; echo ready; while :; do sleep 0.05; done`)
	cfg.Resources.Cores = []uint16{0}
	start(t, d, cfg)
	waitForLog(t, cfg.StdoutPath, "ready")
	if got := readLog(cfg.StdoutPath); !strings.Contains(got, "Cpus_allowed_list:\t0\n") {
		t.Errorf("task's cpus: %q, want 0", got)
	}
	if b, _ := os.ReadFile(filepath.Join(cgroupDir("cpuset", cfg.ID), "cpuset.cpus")); strings.TrimSpace(string(b)) != "0" {
		t.Errorf("cpuset.cpus = %q", b)
	}
}

// StopTask's SIGTERM reaches the command inside the namespace through the
// init, and the command's own clean exit is the result.
func TestStopSignalReachesCommand(t *testing.T) {
	requireRoot(t)
	d := New(nil)
	cfg := task(t, `trap 'echo got-term; exit 0' TERM; echo ready; while :; do sleep 0.05; done`)
	start(t, d, cfg)
	waitForLog(t, cfg.StdoutPath, "ready")
	if err := d.StopTask(cfg.ID, 10*time.Second, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	res := wait(t, d, cfg.ID)
	if !res.Successful() || !strings.Contains(readLog(cfg.StdoutPath), "got-term") {
		t.Fatalf("result %+v, stdout %q", res, readLog(cfg.StdoutPath))
	}
	// Without a trap the command dies of the signal, reported as such.
	cfg = task(t, `echo ready; while :; do sleep 0.05; done`)
	start(t, d, cfg)
	waitForLog(t, cfg.StdoutPath, "ready")
	if err := d.SignalTask(cfg.ID, "SIGINT"); err != nil {
		t.Fatal(err)
	}
	if res := wait(t, d, cfg.ID); res.Signal != int(syscall.SIGINT) || res.ExitCode != 130 {
		t.Fatalf("killed by SIGINT: %+v", res)
	}
}

// A new driver instance (a restarted plugin) recovers the task by the
// init's pid, and its stop and destroy still kill everything in the cgroup.
func TestRecoverStopDestroy(t *testing.T) {
	requireRoot(t)
	a := New(nil)
	cfg := task(t, `trap '' TERM; sleep 60 & echo ready; while :; do sleep 0.05; done`)
	h := start(t, a, cfg)
	waitForLog(t, cfg.StdoutPath, "ready")
	procs := cgroupDir("memory", cfg.ID)
	pids := readPids(procs)
	if len(pids) < 3 {
		t.Fatalf("cgroup processes %v, want init, sh and sleep", pids)
	}
	b := New(nil)
	if err := b.RecoverTask(h); err != nil {
		t.Fatal(err)
	}
	if err := b.StopTask(cfg.ID, 200*time.Millisecond, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	if res := wait(t, b, cfg.ID); !errors.Is(res.Err, base.ErrExitCodeUnknown) {
		t.Fatalf("recovered result %+v", res)
	}
	if err := b.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); !strings.Contains(string(st), ") Z ") {
				t.Errorf("process %d of the task survived", pid)
			}
		}
	}
	if _, err := os.Stat(procs); !os.IsNotExist(err) {
		t.Errorf("cgroup %s left: %v", procs, err)
	}
}

func readPids(dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// Stats come from the task's cgroup: all its processes and their memory.
func TestStatsFromCgroup(t *testing.T) {
	requireRoot(t)
	d := New(nil)
	cfg := task(t, `sleep 60 & echo ready; while :; do sleep 0.05; done`)
	start(t, d, cfg)
	waitForLog(t, cfg.StdoutPath, "ready")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := d.TaskStats(ctx, cfg.ID, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	u := <-ch
	if u == nil || u.Pids < 3 || u.Memory.RSS == 0 {
		t.Fatalf("usage = %+v, want init, sh, sleep and some memory", u)
	}
}
