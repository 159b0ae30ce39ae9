package virt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
	"github.com/nomadish/nomadish/drivers/virt/virttest"
)

// The cloud-init path: a raw image in the task dir becomes a thin qcow2
// overlay grown to primary_disk_size, the user_data goes on the NoCloud
// seed, and the guest (virttest: it mounts the seed and prints its
// user-data) shows it in the stdout log. Stopping presses the ACPI button
// and the guest powers off on its own: a clean exit well before the
// timeout. alloc exec runs through the guest's QEMU guest agent. Destroying leaves no domain, overlay or seed; the image stays.
func TestCloudInitThinCopyExecGracefulStop(t *testing.T) {
	d := newDriver(t)
	cfg := guest(t, "")
	local := filepath.Join(cfg.TaskDir, "local")
	g, err := virttest.BuildAgent(local, marker)
	if err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(local, "disk.raw")
	if err := virttest.WriteRawDisk(img, 16); err != nil {
		t.Fatal(err)
	}
	userData := "#cloud-config\n# nomadish-user-data-" + cfg.AllocID + "\n"
	cfg.Config = map[string]any{"kernel": g.Kernel, "initrd": g.Initrd, "cmdline": virttest.Cmdline, "accelerator": "tcg",
		"image": "local/disk.raw", "use_thin_copy": true, "primary_disk_size": int64(32), "user_data": userData,
		"hostname": "vm-1", "graceful_shutdown_timeout": "60s"}
	start := time.Now()
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	waitFor(t, cfg, virttest.ACPIReady, start)
	log := drivertest.ReadLog(cfg.StdoutPath)
	if !strings.Contains(log, virttest.SeedBegin) || !strings.Contains(log, "nomadish-user-data-"+cfg.AllocID) {
		t.Fatalf("the guest did not print the seed's user-data:\n%s", log)
	}

	// alloc exec through the guest's QEMU guest agent: output, stdin, exit code.
	// The agent's port opens a moment after the guest says it started it
	// (a real VM: polling is the only way).
	var out, errOut strings.Builder
	var res *base.ExitResult
	for agentWait := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		out.Reset()
		errOut.Reset()
		res, err = d.ExecTaskStreaming(context.Background(), cfg.ID, &base.ExecOptions{
			Command: []string{"/bin/busybox", "sh", "-c", "echo in-guest; cat; echo to-err >&2; exit 7"},
			Stdin:   strings.NewReader("piped\n"), Stdout: &out, Stderr: &errOut})
		if !errors.Is(err, ErrNoGuestAgent) || time.Since(agentWait) > 30*time.Second {
			break
		}
	}
	if err != nil || res.ExitCode != 7 || out.String() != "in-guest\npiped\n" || errOut.String() != "to-err\n" {
		t.Errorf("exec through the guest agent: %+v, %v; stdout %q stderr %q", res, err, out.String(), errOut.String())
	}

	tk, _ := d.tasks.Get(cfg.ID)
	l, _ := d.conn.get()
	live, err := l.DomainGetXMLDesc(tk.dom, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<driver name='qemu' type='qcow2'/>", "<target dev='vda' bus='virtio'/>",
		"<target dev='vdb' bus='virtio'/>", "<readonly/>"} {
		if !strings.Contains(live, want) {
			t.Errorf("live domain XML lacks %s", want)
		}
	}
	if st, err := d.InspectTask(cfg.ID); err != nil || st.DriverAttributes["block.vdb.rd_bytes"] == "" ||
		st.DriverAttributes["block.vdb.rd_bytes"] == "0" {
		t.Errorf("no block counters of the seed the guest read: %v, %v", st, err)
	}
	if st, err := os.Stat(tk.state.Disk); err != nil || st.Size() >= 16<<20 {
		t.Errorf("overlay %s: %v (a thin copy is small)", tk.state.Disk, err)
	}

	stopStart := time.Now()
	if err := d.StopTask(cfg.ID, 5*time.Second, ""); err != nil {
		t.Fatalf("StopTask: %v", err)
	}
	if res := drivertest.WaitExit(t, d, cfg.ID, 10*time.Second); !res.Successful() {
		t.Errorf("exit after an ACPI shutdown: %+v", res)
	}
	t.Logf("ACPI stop took %v", time.Since(stopStart))
	if !strings.Contains(drivertest.ReadLog(cfg.StdoutPath), virttest.PowerOff) {
		t.Errorf("the guest did not report the power button")
	}
	if err := d.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
	domainGone(t, d, DomainName(cfg.AllocID, "vm"))
	for _, p := range []string{tk.state.Disk, tk.state.SeedISO, tk.state.WorkDir} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
	if _, err := os.Stat(img); err != nil {
		t.Errorf("the base image is gone: %v", err)
	}
}
