package drivers

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPluginExitsWhenClientDies starts a plugin from a shell that exits at
// once (as a client killed with SIGKILL would), and checks that the orphaned
// plugin exits by itself.
func TestPluginExitsWhenClientDies(t *testing.T) {
	sh := exec.Command("/bin/sh", "-c", `NOMADISH_PLUGIN_PARENT_PID=$$ "$0" plugin raw_exec >/dev/null 2>&1 </dev/null & echo $!`, os.Args[0])
	sh.Env = append(os.Environ(), Handshake.MagicCookieKey+"="+Handshake.MagicCookieValue,
		"PLUGIN_MIN_PORT=10000", "PLUGIN_MAX_PORT=25000", "PLUGIN_PROTOCOL_VERSIONS=1")
	out, err := sh.Output()
	if err != nil {
		t.Fatalf("starting plugin: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("pid %q: %v", out, err)
	}
	// Polling a real process with a deadline (not a unit-test sleep).
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err != nil {
			return // gone
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(b), ") Z ") {
			return // exited, a zombie waiting for its new parent
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("plugin %d still running 10s after its parent died", pid)
}
