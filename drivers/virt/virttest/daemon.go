package virttest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// DaemonLog is where scripts/setup.sh has libvirtd write its warnings and
// errors.
const DaemonLog = "/var/log/libvirt/libvirtd.log"

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
	return fmt.Sprintf("%s; last lines of %s:\n%s\n(scripts/setup.sh test starts it)", running, DaemonLog, tail)
}
