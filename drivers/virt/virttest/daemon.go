package virttest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// DaemonLog is where scripts/setup.sh has libvirtd write its warnings and
// errors.
const DaemonLog = "/var/log/libvirt/libvirtd.log"

var (
	startOnce sync.Once
	startErr  error
)

// RequireDaemon fails the test unless the system libvirtd answers. When it
// does not, it runs `scripts/setup.sh libvirt` once per test binary, the
// same start `make test` does, and says so in the test log: a daemon that
// died since, or a stale socket file on a machine restored from an image,
// is restarted instead of failing every virt test that follows.
func RequireDaemon(t testing.TB) {
	t.Helper()
	if daemonAnswers() {
		return
	}
	startOnce.Do(func() { startErr = startDaemon() })
	if startErr == nil && daemonAnswers() {
		t.Logf("libvirtd did not answer; started it with scripts/setup.sh libvirt")
		return
	}
	t.Fatalf("libvirtd is required and does not answer on qemu:///system (start: %v)\n%s", startErr, DaemonState())
}

func daemonAnswers() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, "virsh", "-q", "-c", "qemu:///system", "version").Run() == nil
}

// startDaemon runs scripts/setup.sh libvirt from the repository holding the
// test's working directory.
func startDaemon() error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	for {
		script := filepath.Join(dir, "scripts", "setup.sh")
		if _, err := os.Stat(script); err == nil {
			out, err := exec.Command(script, "libvirt").CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s libvirt: %v: %s", script, err, out)
			}
			return nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("no scripts/setup.sh above the test's directory")
		}
		dir = parent
	}
}

// DaemonState says whether a libvirtd process is running and what its log
// said last, for the message of a test that could not reach it: a socket
// file without a daemon behind it and a daemon that died look the same
// from the client's side.
func DaemonState() string {
	running := "no libvirtd process is running"
	if out, err := exec.Command("pgrep", "-a", "-x", "libvirtd").Output(); err == nil {
		running = "running: " + strings.TrimSpace(string(out))
	}
	tail := "(no log)"
	if b, err := os.ReadFile(DaemonLog); err == nil {
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) > 5 {
			lines = lines[len(lines)-5:]
		}
		tail = strings.Join(lines, "\n")
	}
	return fmt.Sprintf("%s; last lines of %s:\n%s", running, DaemonLog, tail)
}
