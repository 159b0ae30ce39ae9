// Package netnstest creates real network namespaces for tests (ip netns),
// removed when the test ends.
package netnstest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/internal/netns"
)

// New creates a named namespace with its loopback up and returns its file
// (/var/run/netns/<name>) and the "net:[inode]" a process in it sees as
// its /proc/self/ns/net link. It skips the test when not root, and fails
// it when iproute2 (installed by scripts/setup.sh test) is absent.
func New(t testing.TB) (path, link string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("ip is missing: install iproute2 (scripts/setup.sh test)")
	}
	name := fmt.Sprintf("nomadish-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", name, err, out)
		}
	})
	if out, err := exec.Command("ip", "-n", name, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("ip link set lo up: %v: %s", err, out)
	}
	path = "/var/run/netns/" + name
	ino, err := netns.Inode(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, fmt.Sprintf("net:[%d]", ino)
}

// Link returns the "net:[inode]" of process pid's network namespace.
func Link(t testing.TB, pid int) string {
	t.Helper()
	l, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(l)
}
