package qemu

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
	"github.com/nomadish/nomadish/drivers/qemu/qemutest"
)

// marker is what the test guest's /init prints on the console.
const marker = "nomadish-guest-up"

// bootDeadline bounds a TCG boot of the Debian kernel to the marker
// (about 5 s on this machine; slower when tests run in parallel).
const bootDeadline = 60 * time.Second

// guest builds the test initramfs and returns a task config booting it with
// the host's kernel, and a driver allowed to read /boot. qemu, the kernel
// and busybox are required: `make test` installs them (scripts/setup.sh).
func guest(t *testing.T, graceful bool) (*Driver, *base.TaskConfig) {
	t.Helper()
	kernel, err := qemutest.Kernel()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	task := filepath.Join(root, "vm")
	if err := os.MkdirAll(filepath.Join(task, "local"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := qemutest.WriteInitramfs(filepath.Join(task, "local", "initrd.gz"), qemutest.Busybox, qemutest.InitScript(marker)); err != nil {
		t.Fatal(err)
	}
	d := New(nil)
	if err := d.SetConfig(map[string]any{"image_paths": []any{filepath.Dir(kernel)}}); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(root, "alloc", "logs")
	cfg := &base.TaskConfig{
		ID: fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano()), Name: "vm", AllocDir: root, TaskDir: task,
		Env: map[string]string{}, Resources: base.Resources{MemoryMB: 256},
		Config: map[string]any{"kernel": kernel, "initrd": "local/initrd.gz", "append": "console=ttyS0 quiet",
			"accelerator": "tcg", "graceful_shutdown": graceful},
		StdoutPath: filepath.Join(logs, "vm.stdout"), StderrPath: filepath.Join(logs, "vm.stderr"),
	}
	return d, cfg
}

// waitForMarker polls the console log (a real VM: polling is the only way).
func waitForMarker(t *testing.T, cfg *base.TaskConfig, start time.Time) {
	t.Helper()
	for !strings.Contains(drivertest.ReadLog(cfg.StdoutPath), marker) {
		if time.Since(start) > bootDeadline {
			t.Fatalf("no %q on the console after %v; stdout %q; stderr %q", marker, bootDeadline,
				drivertest.ReadLog(cfg.StdoutPath), drivertest.ReadLog(cfg.StderrPath))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("guest up after %v", time.Since(start))
}

// Boot the Debian kernel with the busybox initramfs under TCG, see the
// marker in the stdout log, sample stats; recover the VM in a new driver
// instance, which resumes the console log; stop it there with graceful_shutdown: QMP system_powerdown is
// sent (busybox as init ignores the ACPI button), so after kill_timeout
// qemu is killed. Both drivers see the exit.
func TestBootRecoverGracefulStop(t *testing.T) {
	t.Parallel()
	d1, cfg := guest(t, true)
	start := time.Now()
	h, err := d1.StartTask(cfg)
	if err != nil {
		t.Fatalf("StartTask: %v\nstderr: %s", err, drivertest.ReadLog(cfg.StderrPath))
	}
	t.Cleanup(func() { _ = d1.DestroyTask(cfg.ID, true) })
	waitForMarker(t, cfg, start)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stats, err := d1.TaskStats(ctx, cfg.ID, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if u := <-stats; u == nil || u.Memory.RSS < 16<<20 || u.Pids < 1 || u.CPU.UserTime <= 0 {
		t.Fatalf("stats of a booted VM: %+v", u)
	}

	// The first plugin "dies": its log pumps stop. The recovering driver
	// must capture the console from where they stopped.
	t1, err := d1.tasks.Get(cfg.ID)
	if err != nil {
		t.Fatal(err)
	}
	t1.closePumps()
	ticks := strings.Count(drivertest.ReadLog(cfg.StdoutPath), qemutest.Tick)
	d2 := New(nil)
	if err := d2.RecoverTask(h); err != nil {
		t.Fatalf("RecoverTask: %v", err)
	}
	st, err := d2.InspectTask(cfg.ID)
	if err != nil || st.State != base.TaskStateRunning || st.DriverAttributes["pid"] != fmt.Sprint(t1.state.Pid) {
		t.Fatalf("recovered task: %+v %v", st, err)
	}
	for strings.Count(drivertest.ReadLog(cfg.StdoutPath), qemutest.Tick) <= ticks+1 {
		if time.Since(start) > bootDeadline+10*time.Second {
			t.Fatalf("console not captured after recovery: %d ticks before, log %q", ticks, drivertest.ReadLog(cfg.StdoutPath))
		}
		time.Sleep(100 * time.Millisecond)
	}
	stopStart := time.Now()
	if err := d2.StopTask(cfg.ID, 2*time.Second, ""); err != nil {
		t.Fatalf("StopTask: %v", err)
	}
	t.Logf("stopped after %v", time.Since(stopStart))
	st, _ = d2.InspectTask(cfg.ID)
	if got := st.DriverAttributes["graceful_shutdown"]; !strings.HasPrefix(got, "system_powerdown") {
		t.Fatalf("graceful shutdown not attempted over QMP: %q", got)
	}
	t.Logf("graceful shutdown: %s", st.DriverAttributes["graceful_shutdown"])
	if res := drivertest.WaitExit(t, d2, cfg.ID, 5*time.Second); !errors.Is(res.Err, base.ErrExitCodeUnknown) {
		t.Errorf("recovering driver's exit: %+v, want ErrExitCodeUnknown", res)
	}
	// The first driver is qemu's parent: it saw the SIGKILL after kill_timeout.
	if res := drivertest.WaitExit(t, d1, cfg.ID, 5*time.Second); res.Signal != 9 {
		t.Errorf("parent driver's exit: %+v, want killed by signal 9", res)
	}
	if err := d2.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(h.Config.TaskDir + "/qmp.sock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("QMP socket left behind: %v", err)
	}
}

// port_map forwards the task's host port; without graceful_shutdown
// StopTask sends SIGTERM: qemu quits at once with status 0, long before
// kill_timeout.
func TestPortMapAndStopWithoutGracefulShutdown(t *testing.T) {
	t.Parallel()
	d, cfg := guest(t, false)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hostPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cfg.Env["NOMAD_HOST_PORT_web"] = fmt.Sprint(hostPort)
	cfg.Config["port_map"] = []any{map[string]any{"web": int64(80)}}
	start := time.Now()
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	waitForMarker(t, cfg, start)
	// user-mode networking listens on the host port for the guest's port 80.
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", hostPort), 2*time.Second)
	if err != nil {
		t.Fatalf("port_map: nothing forwards host port %d: %v", hostPort, err)
	}
	c.Close()
	stopStart := time.Now()
	if err := d.StopTask(cfg.ID, 30*time.Second, ""); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(stopStart); took > 10*time.Second {
		t.Errorf("SIGTERM stop took %v", took)
	}
	res := drivertest.WaitExit(t, d, cfg.ID, time.Second)
	if res.ExitCode != 0 || res.Signal != 0 || res.Err != nil {
		t.Errorf("exit %+v, want 0", res)
	}
	st, _ := d.InspectTask(cfg.ID)
	if _, called := st.DriverAttributes["graceful_shutdown"]; called {
		t.Error("QMP used without graceful_shutdown")
	}
	if stderr := drivertest.ReadLog(cfg.StderrPath); !regexp.MustCompile(`terminating on signal 15`).MatchString(stderr) {
		t.Errorf("qemu's stderr not in the stderr log: %q", stderr)
	}
}

// A kernel outside the alloc dir and image_paths is refused before qemu
// runs, with an error naming the key and the plugin setting.
func TestImagePathsRefusal(t *testing.T) {
	d, cfg := guest(t, false)
	if err := d.SetConfig(map[string]any{}); err != nil { // no image_paths
		t.Fatal(err)
	}
	_, err := d.StartTask(cfg)
	if !errors.Is(err, ErrPathNotAllowed) || !strings.Contains(err.Error(), "kernel") || !strings.Contains(err.Error(), "image_paths") {
		t.Fatalf("StartTask err = %v, want ErrPathNotAllowed naming kernel and image_paths", err)
	}
	if _, err := d.InspectTask(cfg.ID); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("refused task registered: %v", err)
	}
}

// args that read or write host files are refused before qemu runs: all
// args without an args_allowlist, host paths in allowed flags' values with
// one. Nothing is started and the pidfile is not written.
func TestArgsReadingHostFilesRefused(t *testing.T) {
	d, cfg := guest(t, false)
	pidfile := filepath.Join(t.TempDir(), "x.pid")
	cfg.Config["args"] = []any{"-drive", "file=/etc/shadow,format=raw,if=virtio", "-pidfile", pidfile}
	for _, c := range []struct {
		allow []any
		want  error
	}{{nil, ErrArgNotAllowed}, {[]any{"-drive", "-pidfile"}, ErrPathNotAllowed}} {
		allow, want := c.allow, c.want
		if err := d.SetConfig(map[string]any{"image_paths": d.imagePaths, "args_allowlist": allow}); err != nil {
			t.Fatal(err)
		}
		_, err := d.StartTask(cfg)
		if !errors.Is(err, want) {
			t.Errorf("args_allowlist %v: StartTask = %v, want %v", allow, err, want)
		}
		if _, err := d.InspectTask(cfg.ID); !errors.Is(err, base.ErrTaskNotFound) {
			t.Errorf("args_allowlist %v: refused task registered: %v", allow, err)
		}
		if _, err := os.Stat(pidfile); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("args_allowlist %v: pidfile written: %v", allow, err)
		}
	}
}

// qemu rejecting its arguments fails StartTask with qemu's own message.
func TestStartFailureReportsQemuError(t *testing.T) {
	d, cfg := guest(t, false)
	if err := d.SetConfig(map[string]any{"image_paths": d.imagePaths, "args_allowlist": []any{"-no-such-option"}}); err != nil {
		t.Fatal(err)
	}
	cfg.Config["args"] = []any{"-no-such-option"}
	_, err := d.StartTask(cfg)
	if err == nil || !strings.Contains(err.Error(), "exited at start") || !strings.Contains(err.Error(), "no-such-option") {
		t.Fatalf("StartTask err = %v", err)
	}
	if _, err := d.InspectTask(cfg.ID); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("failed task registered: %v", err)
	}
}

func TestFingerprint(t *testing.T) {
	fp, err := New(nil).Fingerprint(context.Background())
	if err != nil || fp.Health != base.HealthHealthy {
		t.Fatalf("fingerprint with qemu installed: %+v %v", fp, err)
	}
	a := fp.Attributes
	if a["driver.qemu"] != "1" || !regexp.MustCompile(`^\d+\.\d+(\.\d+)?$`).MatchString(a["driver.qemu.version"]) ||
		a["driver.qemu.kvm"] != fmt.Sprint(kvmAvailable()) {
		t.Fatalf("attributes %v", a)
	}
	t.Setenv("PATH", t.TempDir())
	if fp, _ := New(nil).Fingerprint(context.Background()); fp.Health != base.HealthUndetected || Installed() {
		t.Fatalf("without qemu in PATH: %+v", fp)
	}
}
