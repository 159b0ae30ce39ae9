// Package testbin is what the programs that run the real binary share
// (the e2e and ui/browsertest tests, tools/gcbench, sim/full): building it
// from this tree, and handing out ports for the agents they start.
package testbin

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Build runs `go build -o out` at the module root.
func Build(out string) error {
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, b)
	}
	return nil
}

// handedOut holds every port FreePorts returned in this process: the
// kernel may offer a closed port again before the agent it was meant for
// binds it, and two agents must never be handed the same one.
var (
	handedOutMu sync.Mutex
	handedOut   = map[int]bool{}
)

// FreePorts returns n ports that were free a moment ago (listen on :0,
// close) and that no earlier call returned.
func FreePorts(n int) ([]int, error) {
	handedOutMu.Lock()
	defer handedOutMu.Unlock()
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		held = append(held, l)
		if len(held) > 100*n {
			return nil, fmt.Errorf("FreePorts: no fresh port in %d tries", len(held))
		}
		p := l.Addr().(*net.TCPAddr).Port
		if handedOut[p] {
			continue
		}
		handedOut[p] = true
		ports = append(ports, p)
	}
	return ports, nil
}
