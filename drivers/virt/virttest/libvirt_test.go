package virttest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/virt/virttest"
)

const libvirtURI = "qemu:///system"

// domainXML is a transient TCG domain booting g directly, the image as
// vda and the seed as vdb (virtio, read-only), its serial console in a
// file, a guest agent channel, powering off on the ACPI power button.
func domainXML(name string, g virttest.Guest, disk, seed, console string) string {
	return fmt.Sprintf(`<domain type='qemu'>
  <name>%s</name>
  <memory unit='MiB'>256</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>%s</kernel>
    <initrd>%s</initrd>
    <cmdline>%s</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw'/>
      <source file='%s'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw'/>
      <source file='%s'/>
      <target dev='vdb' bus='virtio'/>
      <readonly/>
    </disk>
    <channel type='unix'>
      <target type='virtio' name='org.qemu.guest_agent.0'/>
    </channel>
    <serial type='file'>
      <source path='%s'/>
      <target port='0'/>
    </serial>
  </devices>
</domain>
`, name, g.Kernel, g.Initrd, virttest.Cmdline, disk, seed, console)
}

func virsh(args ...string) (string, error) {
	out, err := exec.Command("virsh", append([]string{"-c", libvirtURI}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// waitFile polls path until a line equals want; it fails the test when
// ctx ends.
func waitFile(ctx context.Context, t *testing.T, path, want string) []string {
	t.Helper()
	for {
		b, _ := os.ReadFile(path)
		lines := strings.Split(strings.ReplaceAll(string(b), "\r", ""), "\n")
		for i, l := range lines {
			if l == want {
				return lines[:i+1]
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no %q in %s:\n%s", want, path, b)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TestLibvirtBootsTCG starts the guest as a transient libvirt domain on
// the system libvirtd (scripts/setup.sh test starts it): the console file
// shows the marker and the seed's user-data; the guest agent answers
// guest-exec (what the driver's alloc exec uses); an ACPI shutdown (virsh
// shutdown --mode acpi) powers it off and the domain is gone.
func TestLibvirtBootsTCG(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("qemu:///system needs root")
	}
	if _, err := exec.LookPath("virsh"); err != nil {
		t.Fatal("virsh is required (scripts/setup.sh test installs libvirt-clients)")
	}
	virttest.RequireDaemon(t)
	g, disk, seed := writeGuest(t, true)
	dir := filepath.Dir(disk)
	// qemu runs as libvirt-qemu unless qemu.conf says user = "root": it
	// must be able to search every parent of the files (libvirt chowns
	// the files themselves while the domain runs).
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	console := filepath.Join(dir, "console.log")
	name := fmt.Sprintf("nomadish-virttest-%d", time.Now().UnixNano())
	xml := filepath.Join(dir, "domain.xml")
	if err := os.WriteFile(xml, []byte(domainXML(name, g, disk, seed, console)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := virsh("create", xml); err != nil {
		t.Fatalf("virsh create: %v: %s", err, out)
	}
	t.Cleanup(func() { _, _ = virsh("destroy", name) })

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	waitFile(ctx, t, console, bootMarker)
	lines := waitFile(ctx, t, console, virttest.SeedEnd)
	if user := strings.Join(virttest.SeedLines(lines), "\n"); !strings.Contains(user, seedMarker) {
		t.Fatalf("the guest's user-data:\n%s", user)
	}
	waitFile(ctx, t, console, virttest.AgentReady)
	waitFile(ctx, t, console, virttest.ACPIReady)
	// The agent printed its marker; libvirt sees its channel connect a
	// moment later (a VSERPORT_CHANGE event), and says "not connected"
	// until then.
	for {
		out, err := virsh("qemu-agent-command", name, `{"execute":"guest-ping"}`)
		if err == nil {
			break
		}
		if ctx.Err() != nil || !strings.Contains(out, "not connected") {
			t.Fatalf("guest-ping: %v: %s", err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	out, err := virsh("qemu-agent-command", name,
		`{"execute":"guest-exec","arguments":{"path":"/bin/busybox","arg":["echo","nomadish-exec"],"capture-output":true}}`)
	if err != nil {
		t.Fatalf("guest-exec: %v: %s", err, out)
	}
	var started struct{ Return struct{ PID int } }
	if err := json.Unmarshal([]byte(out), &started); err != nil {
		t.Fatalf("guest-exec: %v: %s", err, out)
	}
	for {
		out, err := virsh("qemu-agent-command", name, fmt.Sprintf(`{"execute":"guest-exec-status","arguments":{"pid":%d}}`, started.Return.PID))
		if err != nil {
			t.Fatalf("guest-exec-status: %v: %s", err, out)
		}
		var st struct {
			Return struct {
				Exited   bool   `json:"exited"`
				ExitCode int    `json:"exitcode"`
				OutData  string `json:"out-data"`
			}
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("guest-exec-status: %v: %s", err, out)
		}
		if st.Return.Exited {
			if got, _ := base64.StdEncoding.DecodeString(st.Return.OutData); st.Return.ExitCode != 0 || string(got) != "nomadish-exec\n" {
				t.Fatalf("guest-exec: exit %d, output %q", st.Return.ExitCode, got)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("guest-exec did not exit: %s", out)
		case <-time.After(200 * time.Millisecond):
		}
	}
	if out, err := virsh("shutdown", "--mode", "acpi", name); err != nil {
		t.Fatalf("virsh shutdown: %v: %s", err, out)
	}
	waitFile(ctx, t, console, virttest.PowerOff)
	for {
		if _, err := virsh("domstate", name); err != nil {
			return // a transient domain is gone once it powered off
		}
		select {
		case <-ctx.Done():
			out, _ := virsh("domstate", name)
			t.Fatalf("domain %s still there after its poweroff: %s", name, out)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
