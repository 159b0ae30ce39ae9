package virt

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
	"github.com/nomadish/nomadish/drivers/qemu/qemutest"
	"github.com/nomadish/nomadish/drivers/virt/virttest"
)

// marker is what the test guest's /init prints on the console.
const marker = "nomadish-virt-guest-up"

// bootDeadline bounds a TCG boot of the Debian kernel to the marker.
const bootDeadline = 90 * time.Second

// newDriver returns a driver for the local libvirtd allowed to read /boot.
// libvirtd is required (scripts/setup.sh starts it): its absence fails.
func newDriver(t *testing.T) *Driver {
	t.Helper()
	virttest.RequireDaemon(t)
	d := New(nil)
	if err := d.SetConfig(map[string]any{"image_paths": []any{"/boot"}}); err != nil {
		t.Fatal(err)
	}
	fp, err := d.Fingerprint(context.Background())
	if err != nil || fp.Health != base.HealthHealthy {
		t.Fatalf("libvirtd is required: %+v, %v\n%s", fp, err, virttest.DaemonState())
	}
	return d
}

func uuid() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// guest builds the test initramfs (init runs script; none when "") and a
// task config booting it with the host's kernel under TCG.
func guest(t *testing.T, script string) *base.TaskConfig {
	t.Helper()
	kernel, err := qemutest.Kernel()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	task := filepath.Join(root, "vm")
	if err := os.MkdirAll(filepath.Join(task, "local"), 0o755); err != nil {
		t.Fatal(err)
	}
	if script != "" {
		if err := qemutest.WriteInitramfs(filepath.Join(task, "local", "initrd.gz"), qemutest.Busybox, script); err != nil {
			t.Fatal(err)
		}
	}
	alloc := uuid()
	logs := filepath.Join(root, "alloc", "logs")
	return &base.TaskConfig{
		ID: alloc + "/vm/" + fmt.Sprint(time.Now().UnixNano()), Name: "vm", AllocID: alloc, AllocDir: root, TaskDir: task,
		Env: map[string]string{}, Resources: base.Resources{MemoryMB: 256, CPUShares: 500},
		Config: map[string]any{"kernel": kernel, "initrd": "local/initrd.gz", "cmdline": "console=ttyS0 quiet panic=-1",
			"accelerator": "tcg"},
		StdoutPath: filepath.Join(logs, "vm.stdout"), StderrPath: filepath.Join(logs, "vm.stderr"),
	}
}

// waitFor polls the console log for s (a real VM: polling is the only way).
func waitFor(t *testing.T, cfg *base.TaskConfig, s string, start time.Time) {
	t.Helper()
	for !strings.Contains(drivertest.ReadLog(cfg.StdoutPath), s) {
		if time.Since(start) > bootDeadline {
			t.Fatalf("no %q on the console after %v; stdout %q", s, bootDeadline, drivertest.ReadLog(cfg.StdoutPath))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// domainGone fails t if libvirt still knows a domain named name.
func domainGone(t *testing.T, d *Driver, name string) {
	t.Helper()
	l, err := d.conn.get()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.DomainLookupByName(name); !isNoDomain(err) {
		t.Errorf("domain %s still defined (lookup error %v)", name, err)
	}
}

// Boot with cores = 2 under TCG: the marker reaches the stdout log; the live
// domain XML pins both vCPUs, the emulator and the memory; stats come from
// libvirt. A second driver instance (a restarted plugin) recovers the same
// running domain and stops it: the ACPI button is ignored by busybox init,
// so after the grace it is destroyed. Nothing is left behind.
func TestBootPinnedRecoverStop(t *testing.T) {
	d1 := newDriver(t)
	cfg := guest(t, qemutest.InitScript(marker))
	cfg.Resources.Cores, cfg.Resources.NUMANodes = []uint16{0, 1}, []uint16{0}
	cfg.Resources.MemoryMaxMB = 384
	start := time.Now()
	h, err := d1.StartTask(cfg)
	if err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	t.Cleanup(func() { _ = d1.DestroyTask(cfg.ID, true) })
	waitFor(t, cfg, marker, start)
	t.Logf("guest up after %v", time.Since(start))

	t1, _ := d1.tasks.Get(cfg.ID)
	l, _ := d1.conn.get()
	live, err := l.DomainGetXMLDesc(t1.dom, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<vcpupin vcpu='0' cpuset='0'/>", "<vcpupin vcpu='1' cpuset='1'/>", "<emulatorpin cpuset='0-1'/>",
		"<memory mode='strict' nodeset='0'/>", "<memnode cellid='0' mode='strict' nodeset='0'/>", "<shares>500</shares>",
		"<memory unit='KiB'>393216</memory>", "<cell id='0' cpus='0-1' memory='393216' unit='KiB'/>"} {
		if !strings.Contains(live, want) {
			t.Errorf("live domain XML lacks %s:\n%s", want, live)
		}
	}
	// The balloon's target (the guest's initramfs has no balloon driver,
	// so the live value stays at the maximum).
	defined, err := l.DomainGetXMLDesc(t1.dom, libvirt.DomainXMLInactive)
	if err != nil || !strings.Contains(defined, "<currentMemory unit='KiB'>262144</currentMemory>") {
		t.Errorf("defined domain XML lacks currentMemory = memory (%v):\n%s", err, defined)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stats, err := d1.TaskStats(ctx, cfg.ID, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if u := <-stats; u == nil || u.Memory.RSS < 16<<20 || u.CPU.UserTime <= 0 {
		t.Errorf("stats of a booted VM: %+v", u)
	}

	d2 := newDriver(t)
	if err := d2.RecoverTask(h); err != nil {
		t.Fatalf("RecoverTask: %v", err)
	}
	st, err := d2.InspectTask(cfg.ID)
	if err != nil || st.State != base.TaskStateRunning || st.DriverAttributes["domain"] != DomainName(cfg.AllocID, "vm") {
		t.Fatalf("recovered task: %+v, %v", st, err)
	}
	// The recovered console copier goes on appending to the log.
	n := strings.Count(drivertest.ReadLog(cfg.StdoutPath), qemutest.Tick)
	for strings.Count(drivertest.ReadLog(cfg.StdoutPath), qemutest.Tick) <= n+1 {
		if time.Since(start) > bootDeadline {
			t.Fatal("the recovered driver copies no console output")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := d2.StopTask(cfg.ID, 2*time.Second, ""); err != nil {
		t.Fatalf("StopTask: %v", err)
	}
	if res := drivertest.WaitExit(t, d2, cfg.ID, 10*time.Second); res.Signal != 9 {
		t.Errorf("exit after a destroy: %+v, want signal 9", res)
	}
	if res := drivertest.WaitExit(t, d1, cfg.ID, 10*time.Second); res == nil {
		t.Error("the first driver saw no exit")
	}
	if err := d2.DestroyTask(cfg.ID, false); err != nil {
		t.Fatalf("DestroyTask: %v", err)
	}
	domainGone(t, d2, DomainName(cfg.AllocID, "vm"))
	if _, err := os.Stat(workDir(cfg)); !os.IsNotExist(err) {
		t.Errorf("work dir %s left behind: %v", workDir(cfg), err)
	}
}

// A guest that powers itself off exits cleanly (code 0), with all its
// console output in the log; DestroyTask leaves no domain or file.
func TestGuestPowerOff(t *testing.T) {
	d := newDriver(t)
	cfg := guest(t, "#!/bin/busybox sh\n/bin/busybox echo "+marker+"\n/bin/busybox poweroff -f\n")
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	res := drivertest.WaitExit(t, d, cfg.ID, bootDeadline)
	if !res.Successful() {
		t.Errorf("exit of a guest that powered off: %+v", res)
	}
	if !strings.Contains(drivertest.ReadLog(cfg.StdoutPath), marker) {
		t.Errorf("console log lacks the marker: %q", drivertest.ReadLog(cfg.StdoutPath))
	}
	if err := d.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
	domainGone(t, d, DomainName(cfg.AllocID, "vm"))
	if _, err := os.Stat(workDir(cfg)); !os.IsNotExist(err) {
		t.Errorf("work dir left behind: %v", err)
	}
}

// The mapped port is forwarded; exec without a guest agent is a clear error; signals map to ACPI or are
// refused; a client that lost its handle discovers the domain by name; the
// reconciler of a driver that does not track it removes the domain once its
// alloc dir is gone.
func TestExecSignalDiscoverReconcile(t *testing.T) {
	d := newDriver(t)
	cfg := guest(t, qemutest.InitScript(marker))
	port := freePort(t)
	cfg.Env["NOMAD_HOST_PORT_http"] = fmt.Sprint(port)
	cfg.Config["port_map"] = map[string]any{"http": int64(80)}
	start := time.Now()
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	waitFor(t, cfg, marker, start)

	// The mapped host port is QEMU's user-mode forward.
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
		t.Errorf("port_map: nothing listens on host port %d: %v", port, err)
	} else {
		c.Close()
	}

	_, err := d.ExecTaskStreaming(context.Background(), cfg.ID, &base.ExecOptions{Command: []string{"/bin/true"}})
	if !errors.Is(err, ErrNoGuestAgent) {
		t.Errorf("exec without a guest agent: %v, want ErrNoGuestAgent", err)
	}
	if err := d.SignalTask(cfg.ID, "SIGUSR1"); !errors.Is(err, ErrSignal) {
		t.Errorf("SIGUSR1: %v, want ErrSignal", err)
	}
	if err := d.SignalTask(cfg.ID, "SIGTERM"); err != nil {
		t.Errorf("SIGTERM (ACPI shutdown): %v", err)
	}

	d2 := newDriver(t)
	lost := *cfg
	lost.ID = "a-new-id"
	h, err := d2.DiscoverTask(&lost)
	if err != nil || h.Config.ID != cfg.ID {
		t.Fatalf("DiscoverTask: %+v, %v", h, err)
	}
	other := lost
	other.AllocID = uuid()
	if _, err := d2.DiscoverTask(&other); !errors.Is(err, base.ErrTaskNotFound) {
		t.Errorf("DiscoverTask of another alloc: %v", err)
	}

	d3 := newDriver(t)
	if gone, err := d3.ReconcileDangling(context.Background()); err != nil || contains(gone, DomainName(cfg.AllocID, "vm")) {
		t.Fatalf("reconciled a domain whose alloc dir exists: %v, %v", gone, err)
	}
	if err := os.RemoveAll(cfg.AllocDir); err != nil {
		t.Fatal(err)
	}
	// Another agent's reconciler on this libvirtd may get there first.
	if gone, err := d3.ReconcileDangling(context.Background()); err != nil {
		t.Fatalf("dangling domain not reconciled: %v, %v", gone, err)
	}
	domainGone(t, d3, DomainName(cfg.AllocID, "vm"))
	if res := drivertest.WaitExit(t, d, cfg.ID, 10*time.Second); res == nil {
		t.Error("no exit seen after the reconciler removed the domain")
	}
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
