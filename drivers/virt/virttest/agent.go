package virttest

import (
	"fmt"
	"os/exec"
	"regexp"
)

// QemuGA is where Debian's qemu-guest-agent installs the agent.
const QemuGA = "/usr/sbin/qemu-ga"

// lddPath matches the absolute paths in ldd's output ("libx => /path (0x..)"
// and the loader's "/lib64/ld-linux-x86-64.so.2 (0x..)").
var lddPath = regexp.MustCompile(`(?m)(?:=> |^\s+)(/\S+) \(0x`)

// agentFiles is qemu-ga and the shared objects it loads.
func agentFiles() ([]string, error) {
	out, err := exec.Command("ldd", QemuGA).Output()
	if err != nil {
		return nil, fmt.Errorf("virttest: ldd %s: %w (install qemu-guest-agent)", QemuGA, err)
	}
	files := []string{QemuGA}
	for _, m := range lddPath.FindAllStringSubmatch(string(out), -1) {
		files = append(files, m[1])
	}
	if len(files) < 3 {
		return nil, fmt.Errorf("virttest: ldd %s listed no libraries:\n%s", QemuGA, out)
	}
	return files, nil
}
