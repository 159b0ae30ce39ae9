package cloudinit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/virt/virttest"
)

// hostHasISO9660 loads isofs if it can and reports whether the running
// kernel knows iso9660.
func hostHasISO9660() bool {
	_ = exec.Command("modprobe", "isofs").Run()
	b, err := os.ReadFile("/proc/filesystems")
	return err == nil && strings.Contains(string(b), "\tiso9660\n")
}

// TestLinuxReadsSeedByName has Linux's isofs read the seed: as root a
// loop mount on the host when its kernel has iso9660, else (not root, or
// a kernel without it, like a Firecracker VM's) the Debian kernel in a TCG
// guest, which mounts the seed from a virtio disk and prints its names
// and user-data.
func TestLinuxReadsSeedByName(t *testing.T) {
	path, c := seed(t)
	meta, _ := MetaData(c)
	want := map[string]string{"user-data": UserData(c), "meta-data": meta, "network-config": c.NetworkConfig}
	if os.Geteuid() == 0 && hostHasISO9660() {
		mnt := t.TempDir()
		if out, err := exec.Command("mount", "-o", "loop,ro", "-t", "iso9660", path, mnt).CombinedOutput(); err != nil {
			t.Fatalf("mount: %v: %s", err, out)
		}
		defer exec.Command("umount", mnt).Run()
		for name, data := range want {
			got, err := os.ReadFile(filepath.Join(mnt, name))
			if err != nil || string(got) != data {
				t.Fatalf("%s: %q %v, want %q", name, got, err, data)
			}
		}
		return
	}
	t.Log("not root, or the host kernel has no iso9660: reading the seed in a TCG guest")
	dir := t.TempDir()
	g, err := virttest.Build(dir, "nomadish-cloudinit-guest")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	q, err := virttest.BootQEMU(ctx, dir, g, path)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Kill()
	lines, err := q.Console.Wait(ctx, virttest.SeedEnd)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(virttest.SeedFiles(lines), " "); got != "meta-data network-config user-data" {
		t.Fatalf("the guest's ls of the seed: %q", got)
	}
	if got := strings.Join(virttest.SeedLines(lines), "\n") + "\n"; got != want["user-data"] {
		t.Fatalf("the guest's user-data:\n%s\nwant:\n%s", got, want["user-data"])
	}
}
