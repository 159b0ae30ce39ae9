package virttest_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/virt/cloudinit"
	"github.com/nomadish/nomadish/drivers/virt/virttest"
)

const (
	bootMarker = "nomadish-virttest-booted"
	seedMarker = "nomadish-virttest-user-data-marker"
)

// writeGuest builds the initramfs, a raw disk and a seed whose user-data
// carries seedMarker, all in a temp dir; with agent, qemu-ga is in it.
func writeGuest(t *testing.T, agent bool) (virttest.Guest, string, string) {
	t.Helper()
	dir := t.TempDir()
	build := virttest.Build
	if agent {
		build = virttest.BuildAgent
	}
	g, err := build(dir, bootMarker)
	if err != nil {
		t.Fatal(err)
	}
	disk, seed := filepath.Join(dir, "disk.raw"), filepath.Join(dir, "seed.iso")
	if err := virttest.WriteRawDisk(disk, 4); err != nil {
		t.Fatal(err)
	}
	if err := cloudinit.WriteISO(seed, cloudinit.Config{InstanceID: "i-1", Cmds: []string{"echo " + seedMarker}}); err != nil {
		t.Fatal(err)
	}
	return g, disk, seed
}

// TestBootsUnderTCG boots the guest under plain qemu (TCG) with the image
// as vda and the seed as vdb: Linux's isofs mounts the seed and reads
// user-data by its Rock Ridge name; then an ACPI power button press
// (system_powerdown) makes the guest power off and qemu exit.
func TestBootsUnderTCG(t *testing.T) {
	g, disk, seed := writeGuest(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	q, err := virttest.BootQEMU(ctx, t.TempDir(), g, disk, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Kill()
	lines, err := q.Console.Wait(ctx, virttest.SeedEnd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Console.Wait(ctx, bootMarker); err != nil {
		t.Fatal(err)
	}
	if files := virttest.SeedFiles(lines); strings.Join(files, " ") != "meta-data user-data" {
		t.Fatalf("the seed's files in the guest: %q", files)
	}
	user := strings.Join(virttest.SeedLines(lines), "\n")
	if !strings.Contains(user, "#cloud-config") || !strings.Contains(user, seedMarker) {
		t.Fatalf("the guest's user-data:\n%s", user)
	}
	if _, err := q.Console.Wait(ctx, virttest.ACPIReady); err != nil {
		t.Fatal(err)
	}
	if err := q.Monitor("system_powerdown"); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Console.Wait(ctx, virttest.PowerOff); err != nil {
		t.Fatal(err)
	}
	if err := q.Cmd.Wait(); err != nil {
		t.Fatalf("qemu after the guest's poweroff: %v", err)
	}
}
