package virt

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/base"
)

// coreNodes reads each core's node from its cpuN/nodeM link; a core
// without one is on node 0; a core that does not exist is an error.
func TestCoreNodes(t *testing.T) {
	root := t.TempDir()
	for cpu, node := range map[string]string{"cpu0": "node0", "cpu1": "node0", "cpu2": "node1", "cpu3": ""} {
		if err := os.MkdirAll(filepath.Join(root, cpu), 0o755); err != nil {
			t.Fatal(err)
		}
		if node != "" {
			if err := os.Symlink("../../node/"+node, filepath.Join(root, cpu, node)); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := coreNodes(root, []uint16{2, 0, 3})
	if err != nil || !reflect.DeepEqual(got, []int{1, 0, 0}) {
		t.Fatalf("coreNodes = %v, %v; want [1 0 0]", got, err)
	}
	if _, err := coreNodes(root, []uint16{9}); err == nil || !strings.Contains(err.Error(), "core 9") {
		t.Fatalf("a missing core: %v", err)
	}
}

// With libvirtd's socket absent the driver is unhealthy and says why; the
// plugin config's errors name the key.
func TestFingerprintDaemonDown(t *testing.T) {
	d := New(nil)
	sock := filepath.Join(t.TempDir(), "no-libvirt-sock")
	if err := d.SetConfig(map[string]any{"uri": "qemu:///system?socket=" + sock}); err != nil {
		t.Fatal(err)
	}
	fp, err := d.Fingerprint(context.Background())
	if err != nil || fp.Health != base.HealthUnhealthy || !strings.Contains(fp.HealthDescription, sock) {
		t.Fatalf("fingerprint without a daemon: %+v, %v", fp, err)
	}
	for cfg, key := range map[string]map[string]any{
		"uri":         {"uri": "qemu:///session"},
		"image_paths": {"image_paths": []any{"relative"}},
		"bogus":       {"bogus": true},
	} {
		if err := d.SetConfig(key); err == nil || !strings.Contains(err.Error(), cfg) {
			t.Errorf("SetConfig(%v) = %v, want an error naming %s", key, err, cfg)
		}
	}
}

// With the real daemon: healthy, with libvirt's and QEMU's versions and the
// accelerator.
func TestFingerprintHealthy(t *testing.T) {
	d := newDriver(t)
	fp, _ := d.Fingerprint(context.Background())
	a := fp.Attributes
	if a["driver.virt"] != "1" || !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(a["driver.virt.version"]) || a["driver.virt.qemu_version"] == "" ||
		(a["driver.virt.accelerator"] != "kvm" && a["driver.virt.accelerator"] != "tcg") {
		t.Fatalf("attributes %v", a)
	}
}
