// Package virttest builds what the virt driver's tests boot under TCG with
// direct kernel boot: the host's Debian kernel, a busybox initramfs whose
// init loads the kernel modules for virtio disks, ISO 9660 and the ACPI
// power button, prints a marker, mounts the cloud-init NoCloud seed and
// prints its user-data, starts the QEMU guest agent when built with it
// (BuildAgent), and powers off on the ACPI power button; and a small raw
// disk image for the task's `image`. It builds on qemutest.
package virttest

import (
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomadish/nomadish/drivers/qemu/qemutest"
)

// Lines the InitScript guest prints on its console.
const (
	// SeedBegin and SeedEnd enclose the seed's user-data, printed verbatim.
	SeedBegin = "nomadish-seed-begin"
	SeedEnd   = "nomadish-seed-end"
	// SeedFilesPrefix starts the line, before SeedBegin, listing the
	// seed's root directory as Linux's isofs names its files.
	SeedFilesPrefix = "nomadish-seed-files:"
	// NoSeed is printed when no block device mounts as ISO 9660.
	NoSeed = "nomadish-seed-missing"
	// ACPIReady is printed once the guest listens for the power button;
	// PowerOff when it pressed and the guest powers off.
	ACPIReady = "nomadish-acpi-ready"
	PowerOff  = "nomadish-guest-poweroff"
	// AgentReady is printed when the initramfs has qemu-ga (BuildAgent)
	// and it was started on the org.qemu.guest_agent.0 port; NoAgent when
	// it has qemu-ga but no such port.
	AgentReady = "nomadish-agent-ready"
	NoAgent    = "nomadish-agent-no-port"
	// Tick is printed every second after that (qemutest's).
	Tick = qemutest.Tick
)

// Cmdline is the kernel command line the guest needs: its console on the
// first serial port (libvirt's <serial>/<console>, qemu's -serial).
const Cmdline = "console=ttyS0 panic=-1"

// Modules are the kernel modules the init loads, in dependency order:
// virtio-pci and virtio-blk (the image is vda, the seed vdb), isofs (with
// cdrom, its dependency), the ACPI power button with evdev so the init
// can read its key press, and virtio_console for the guest agent's port. Debian builds all of them as modules.
var Modules = []string{
	"kernel/drivers/virtio/virtio_ring.ko",
	"kernel/drivers/virtio/virtio.ko",
	"kernel/drivers/virtio/virtio_pci_legacy_dev.ko",
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko",
	"kernel/drivers/virtio/virtio_pci.ko",
	"kernel/drivers/block/virtio_blk.ko",
	"kernel/drivers/cdrom/cdrom.ko",
	"kernel/fs/isofs/isofs.ko",
	"kernel/drivers/acpi/button.ko",
	"kernel/drivers/input/evdev.ko",
	"kernel/drivers/char/virtio_console.ko",
}

// Kernel returns the host's newest /boot/vmlinuz-* and its modules'
// directory /lib/modules/<version>.
func Kernel() (kernel, modDir string, err error) {
	kernel, err = qemutest.Kernel()
	if err != nil {
		return "", "", err
	}
	ver := strings.TrimPrefix(filepath.Base(kernel), "vmlinuz-")
	modDir = filepath.Join("/lib/modules", ver)
	if _, err := os.Stat(modDir); err != nil {
		return "", "", fmt.Errorf("virttest: the modules of %s: %w (install linux-image-amd64)", kernel, err)
	}
	return kernel, modDir, nil
}

// InitScript prints marker, loads Modules, mounts the first block device
// that is ISO 9660 (the seed) and prints its user-data between SeedBegin
// and SeedEnd, arms the power button (ACPIReady), then prints Tick every
// second. On the power button it prints PowerOff and powers off.
func InitScript(marker string) string {
	var mods strings.Builder
	for _, m := range Modules {
		mods.WriteString(" " + strings.TrimSuffix(filepath.Base(m), ".ko"))
	}
	return `#!/bin/busybox sh
/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin /sys /seed /tmp
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo ` + marker + `
for m in` + mods.String() + `; do insmod /lib/modules/$m.ko 2>/dev/null; done
seed=
for try in 1 2 3 4 5 6 7 8 9 10; do
	for d in /dev/vd? /dev/sd? /dev/sr?; do
		[ -b "$d" ] || continue
		if mount -t iso9660 -o ro "$d" /seed 2>/dev/null; then seed=$d; break 2; fi
	done
	sleep 1
done
if [ -n "$seed" ]; then
	echo ` + SeedFilesPrefix + ` $(ls /seed)
	echo ` + SeedBegin + `
	cat /seed/user-data
	echo ` + SeedEnd + `
else
	echo ` + NoSeed + `
fi
# The power button's evdev node appears a moment after insmod.
pwr=
for try in 1 2 3 4 5 6 7 8 9 10; do
	for n in /sys/class/input/event*; do
		[ "$(cat $n/device/name 2>/dev/null)" = "Power Button" ] && [ -c /dev/input/${n##*/} ] && pwr=/dev/input/${n##*/}
	done
	[ -n "$pwr" ] && break
	sleep 1
done
# A press before the reader opened the node would be lost: announce
# ACPIReady only once head holds it open.
if [ -n "$pwr" ]; then
	(head -c 1 "$pwr" >/dev/null & echo $! >/tmp/pwr.pid; wait; echo ` + PowerOff + `; sync; poweroff -f) &
	for try in 1 2 3 4 5 6 7 8 9 10; do
		[ -f /tmp/pwr.pid ] && ls -l /proc/$(cat /tmp/pwr.pid)/fd 2>/dev/null | grep -q "$pwr" && break
		sleep 1
	done
fi
if [ -x /usr/sbin/qemu-ga ]; then
	port=
	for try in 1 2 3 4 5; do
		for n in /sys/class/virtio-ports/*; do
			[ "$(cat $n/name 2>/dev/null)" = org.qemu.guest_agent.0 ] && [ -c /dev/${n##*/} ] && port=/dev/${n##*/}
		done
		[ -n "$port" ] && break
		sleep 1
	done
	if [ -n "$port" ]; then
		mkdir -p /var/run /run
		LD_LIBRARY_PATH=/lib/x86_64-linux-gnu /usr/sbin/qemu-ga -m virtio-serial -p "$port" -t /run &
		echo ` + AgentReady + `
	else
		echo ` + NoAgent + `
	fi
fi
echo ` + ACPIReady + `
while :; do sleep 1; echo ` + Tick + `; done
`
}

// WriteInitramfs writes a gzipped newc initramfs to path: busybox (from
// qemutest.Busybox), /init holding script, and Modules from modDir under
// /lib/modules/<name>.ko. Compressed modules (.ko.xz, .ko.zst) are not
// read: the error names the missing .ko. Each extra host file (symlinks
// followed) is added at its own path, with its parent directories.
func WriteInitramfs(path, modDir, script string, extra ...string) error {
	bb, err := os.ReadFile(qemutest.Busybox)
	if err != nil {
		return fmt.Errorf("virttest: reading busybox: %w (install busybox-static)", err)
	}
	entries := []qemutest.Entry{
		{Name: "bin", Mode: qemutest.ModeDir | 0o755},
		{Name: "dev", Mode: qemutest.ModeDir | 0o755},
		{Name: "proc", Mode: qemutest.ModeDir | 0o755},
		{Name: "lib", Mode: qemutest.ModeDir | 0o755},
		{Name: "lib/modules", Mode: qemutest.ModeDir | 0o755},
		{Name: "dev/console", Mode: qemutest.ModeChar | 0o600, Major: 5, Minor: 1},
		{Name: "bin/busybox", Mode: qemutest.ModeFile | 0o755, Data: bb},
		{Name: "init", Mode: qemutest.ModeFile | 0o755, Data: []byte(script)},
	}
	for _, m := range Modules {
		data, err := os.ReadFile(filepath.Join(modDir, m))
		if err != nil {
			return fmt.Errorf("virttest: kernel module: %w", err)
		}
		entries = append(entries, qemutest.Entry{Name: "lib/modules/" + filepath.Base(m), Mode: qemutest.ModeFile | 0o644, Data: data})
	}
	dirs := map[string]bool{"bin": true, "dev": true, "proc": true, "lib": true, "lib/modules": true}
	for _, p := range extra {
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("virttest: %w", err)
		}
		name := strings.TrimPrefix(filepath.Clean(p), "/")
		var parents []string
		for d := filepath.Dir(name); d != "." && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
			parents = append([]string{d}, parents...)
		}
		for _, d := range parents {
			entries = append(entries, qemutest.Entry{Name: d, Mode: qemutest.ModeDir | 0o755})
		}
		entries = append(entries, qemutest.Entry{Name: name, Mode: qemutest.ModeFile | 0o755, Data: data})
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	err = qemutest.WriteNewc(zw, entries)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteRawDisk writes a sparse, zeroed raw disk image of sizeMB MiB at
// path: a task's `image` (the guest boots from kernel and initrd).
func WriteRawDisk(path string, sizeMB int64) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	err = f.Truncate(sizeMB << 20)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Guest is a built guest's files.
type Guest struct {
	Kernel, Initrd string
}

// Build writes the initramfs for InitScript(marker) into dir and returns
// the kernel and initrd paths.
func Build(dir, marker string) (Guest, error) {
	return build(dir, marker, nil)
}

// BuildAgent is Build with the host's QEMU guest agent (/usr/sbin/qemu-ga,
// Debian's qemu-guest-agent) and the shared libraries ldd lists for it in
// the initramfs: the guest starts it on the virtio-serial port named
// org.qemu.guest_agent.0 (libvirt's <channel type='unix'><target
// type='virtio' name='org.qemu.guest_agent.0'/></channel>).
func BuildAgent(dir, marker string) (Guest, error) {
	files, err := agentFiles()
	if err != nil {
		return Guest{}, err
	}
	return build(dir, marker, files)
}

func build(dir, marker string, extra []string) (Guest, error) {
	kernel, modDir, err := Kernel()
	if err != nil {
		return Guest{}, err
	}
	initrd := filepath.Join(dir, "initrd.gz")
	if err := WriteInitramfs(initrd, modDir, InitScript(marker), extra...); err != nil {
		return Guest{}, err
	}
	return Guest{Kernel: kernel, Initrd: initrd}, nil
}
