package execdriver

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
)

// runningTask starts a long-running task on d and returns its config.
func runningTask(t *testing.T, d *Driver) *base.TaskConfig {
	t.Helper()
	cfg := shTask(t, "echo ready; while :; do sleep 0.05; done")
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	waitForLog(t, cfg.StdoutPath, "ready")
	return cfg
}

// execT runs command in task id with stdin and returns stdout, stderr and
// the result.
func execT(t *testing.T, d *Driver, id string, tty bool, stdin string, command ...string) (string, string, *base.ExitResult) {
	t.Helper()
	return drivertest.Exec(t, d, id, tty, stdin, command...)
}

func TestExecTaskOutputExitCodeAndEnv(t *testing.T) {
	d := newDriver(t)
	cfg := runningTask(t, d)
	caps, _ := d.Capabilities()
	if !caps.Exec {
		t.Fatal("Capabilities().Exec is false")
	}
	out, errOut, res := execT(t, d, cfg.ID, false, "", "sh", "-c", `echo hi; echo "$GREETING in $(pwd)"; echo err >&2; exit 3`)
	if want := "hi\nhi in " + cfg.TaskDir + "\n"; out != want || errOut != "err\n" {
		t.Fatalf("stdout %q (want %q), stderr %q", out, want, errOut)
	}
	if res.ExitCode != 3 || res.Signal != 0 {
		t.Fatalf("result %+v, want exit code 3", res)
	}
}

func TestExecTaskStdinAndTTY(t *testing.T) {
	d := newDriver(t)
	cfg := runningTask(t, d)
	if out, _, res := execT(t, d, cfg.ID, false, "line one\nline two\n", "cat"); out != "line one\nline two\n" || res.ExitCode != 0 {
		t.Fatalf("cat: %q, %+v", out, res)
	}
	if out, _, res := execT(t, d, cfg.ID, false, "", "sh", "-c", "test -t 0 || echo no-tty"); out != "no-tty\n" || res.ExitCode != 0 {
		t.Fatalf("pipes: %q, %+v", out, res)
	}
	out, _, res := execT(t, d, cfg.ID, true, "", "sh", "-c", "test -t 0 && test -t 1 && echo is-tty; echo oops >&2; exit 5")
	if !strings.Contains(out, "is-tty") || !strings.Contains(out, "oops") || res.ExitCode != 5 {
		t.Fatalf("tty: %q, %+v", out, res)
	}
	// stdin through the terminal: cat echoes and repeats the line, and the
	// end of stdin is an end of file.
	if out, _, res := execT(t, d, cfg.ID, true, "ping\n", "cat"); strings.Count(out, "ping") != 2 || res.ExitCode != 0 {
		t.Fatalf("tty cat: %q, %+v", out, res)
	}
}

func TestExecTaskTTYResize(t *testing.T) {
	if _, err := exec.LookPath("stty"); err != nil {
		t.Skip("no stty")
	}
	d := newDriver(t)
	cfg := runningTask(t, d)
	resize := make(chan base.TerminalSize, 1)
	resize <- base.TerminalSize{Height: 33, Width: 111}
	stdinR, stdinW := syncPipe()
	var out drivertest.SyncBuffer
	done := make(chan *base.ExitResult, 1)
	go func() {
		res, err := d.ExecTaskStreaming(context.Background(), cfg.ID, &base.ExecOptions{
			Command: []string{"sh", "-c", "read x; stty size"}, Tty: true, Stdin: stdinR, Stdout: &out, ResizeCh: resize})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	// The resize is applied before the line arrives: the command only runs
	// stty after it read it, and we send it once the resize channel drained.
	for len(resize) > 0 {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the drained size reaches the ioctl
	_, _ = stdinW.Write([]byte("go\n"))
	res := <-done
	stdinW.Close()
	if !strings.Contains(out.String(), "33 111") || res == nil || res.ExitCode != 0 {
		t.Fatalf("stty size after resize: %q, %+v", out.String(), res)
	}
}

func syncPipe() (*os.File, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	return r, w
}

func TestExecTaskErrors(t *testing.T) {
	d := newDriver(t)
	_, err := d.ExecTaskStreaming(context.Background(), "nope", &base.ExecOptions{Command: []string{"true"}})
	if !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
	cfg := runningTask(t, d)
	if _, err := d.ExecTaskStreaming(context.Background(), cfg.ID, &base.ExecOptions{}); err == nil {
		t.Fatal("no command: no error")
	}
	_, err = d.ExecTaskStreaming(context.Background(), cfg.ID, &base.ExecOptions{Command: []string{"no-such-command-xyz"}})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("unknown command: %v", err)
	}
	// Cancelling the context kills the command.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	res, err := d.ExecTaskStreaming(ctx, cfg.ID, &base.ExecOptions{Command: []string{"sleep", "30"}})
	if err != nil || res.Signal != int(syscall.SIGKILL) {
		t.Fatalf("cancelled exec: %+v, %v", res, err)
	}
	if err := d.StopTask(cfg.ID, time.Second, ""); err != nil {
		t.Fatal(err)
	}
	_, err = d.ExecTaskStreaming(context.Background(), cfg.ID, &base.ExecOptions{Command: []string{"true"}})
	if err == nil || !strings.Contains(err.Error(), "not running") {
		t.Fatalf("exited task: %v", err)
	}
}

// The exec driver's isolated task: the command joins the task's cgroups,
// PID namespace and user (default nobody) in the task dir.
func TestExecTaskIsolated(t *testing.T) {
	if _, err := checkIsolation(); err != nil {
		t.Skipf("no isolation here: %v", err)
	}
	d := New(Options{Name: "exec", EnabledByDefault: true, Isolate: true})
	cfg := runningTask(t, d)
	out, errOut, res := execT(t, d, cfg.ID, false, "", "sh", "-c", "cat /proc/self/cgroup; id -u; echo pid=$$; pwd")
	if res.ExitCode != 0 || !strings.Contains(out, "/"+cgroupParent+"/"+cgroupName(cfg.ID)) {
		t.Fatalf("cgroups of the exec'd command: %q %q %+v", out, errOut, res)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	n := len(lines)
	if n < 3 || lines[n-3] != "65534" || lines[n-1] != cfg.TaskDir {
		t.Fatalf("user and dir of the exec'd command: %q", out)
	}
	if pid, _ := strconv.Atoi(strings.TrimPrefix(lines[n-2], "pid=")); pid <= 0 || pid > 10 {
		t.Fatalf("%s: not a pid of the task's namespace", lines[n-2])
	}
}

// A task whose process lives in its own PID and mount namespaces (as the
// exec driver's isolation makes it): the command sees the task's mounts
// and gets a PID of that namespace.
func TestExecTaskEntersNamespaces(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	dir := t.TempDir()
	script := "mount --make-rprivate / && mount -t tmpfs tmpfs " + dir + " && echo secret > " + dir +
		"/marker && echo ready && exec sleep 60"
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
	var ready drivertest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &ready, &ready
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot create namespaces here: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(ready.String(), "ready") {
		if time.Now().After(deadline) {
			t.Fatalf("namespaced task not ready: %q", ready.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	d := newDriver(t)
	tk := newTask(&base.TaskConfig{ID: "ns", Name: "ns", TaskDir: dir, Env: map[string]string{"PATH": os.Getenv("PATH")}})
	tk.state.Pid = cmd.Process.Pid
	if err := d.tasks.Add("ns", tk); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
		t.Fatal("the marker leaked into the host mount namespace")
	}
	out, _, res := execT(t, d, "ns", false, "", "sh", "-c", "cat "+dir+"/marker; echo $$")
	lines := strings.Fields(out)
	if res.ExitCode != 0 || len(lines) != 2 || lines[0] != "secret" {
		t.Fatalf("exec in namespaces: %q, %+v", out, res)
	}
	if pid, _ := strconv.Atoi(lines[1]); pid <= 0 || pid > 10 {
		t.Fatalf("pid %s is not one of the task's PID namespace", lines[1])
	}
}
