// Package networktest holds what the tests of group networks share.
package networktest

import (
	"os"
	"testing"

	"github.com/nomadish/nomadish/client/network"
)

// NeedBridge stops a test that needs real bridge networking (namespaces,
// the CNI plugins of cfg's cni_path) where it cannot run. Without root or
// without the kernel's bridge support it skips: that is the machine, not a
// step the set-up missed (the suite runs as root). Missing CNI plugins fail
// the test: `scripts/setup.sh test` (run by `make test`) installs them, and
// a skip would hide that it did not.
func NeedBridge(t testing.TB, cfg network.Config) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces")
	}
	if why := cfg.MissingBridgePlugin(); why != "" {
		t.Fatalf("%s: install containernetworking-plugins (scripts/setup.sh test)", why)
	}
	if ok, why := cfg.BridgeAvailable(); !ok {
		t.Skip("bridge mode unavailable on this kernel: " + why)
	}
}
