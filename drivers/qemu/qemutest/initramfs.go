// Package qemutest builds what tests need to boot a real guest under the
// qemu driver: a tiny initramfs (cpio "newc", gzipped) holding a static
// busybox and an /init script, and the host's kernel from /boot.
package qemutest

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// Busybox is where Debian's busybox-static package puts its binary.
const Busybox = "/bin/busybox"

// ErrNoKernel is returned by Kernel when /boot holds no vmlinuz.
var ErrNoKernel = errors.New("qemutest: no /boot/vmlinuz-* (install linux-image-amd64)")

// Kernel returns the newest /boot/vmlinuz-* by name.
func Kernel() (string, error) {
	m, _ := filepath.Glob("/boot/vmlinuz-*")
	if len(m) == 0 {
		return "", ErrNoKernel
	}
	sort.Strings(m)
	return m[len(m)-1], nil
}

// Tick is the line the InitScript guest prints on its console every second.
const Tick = "nomadish-guest-tick"

// InitScript prints marker on the console, then Tick every second forever
// (so a test sees whether console capture goes on).
func InitScript(marker string) string {
	return "#!/bin/busybox sh\n" +
		"/bin/busybox echo " + marker + "\n" +
		"while :; do /bin/busybox sleep 1; /bin/busybox echo " + Tick + "; done\n"
}

// Entry is one file of an archive. Mode holds the type bits (0o040000
// directory, 0o100000 regular file, 0o020000 character device).
type Entry struct {
	Name         string
	Mode         uint32
	Data         []byte
	Major, Minor uint32 // device number of a character device
}

// Mode type bits of the newc format.
const (
	ModeDir  = 0o040000
	ModeFile = 0o100000
	ModeChar = 0o020000
)

// WriteInitramfs writes a gzipped newc archive to path holding /bin/busybox
// (copied from busybox), /init (script, executable) and /dev/console.
func WriteInitramfs(path, busybox, script string) error {
	bb, err := os.ReadFile(busybox)
	if err != nil {
		return fmt.Errorf("qemutest: reading busybox: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	err = WriteNewc(zw, []Entry{
		{Name: "bin", Mode: ModeDir | 0o755},
		{Name: "dev", Mode: ModeDir | 0o755},
		{Name: "proc", Mode: ModeDir | 0o755},
		{Name: "dev/console", Mode: ModeChar | 0o600, Major: 5, Minor: 1},
		{Name: "bin/busybox", Mode: ModeFile | 0o755, Data: bb},
		{Name: "init", Mode: ModeFile | 0o755, Data: []byte(script)},
	})
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteNewc writes entries as a cpio "newc" archive (the format the Linux
// kernel unpacks as an initramfs): per entry a 110-byte ASCII header of
// hex fields, the NUL-terminated name and the data, each padded to 4
// bytes; then the TRAILER!!! entry.
func WriteNewc(w io.Writer, entries []Entry) error {
	for i, e := range append(entries, Entry{Name: "TRAILER!!!"}) {
		nlink := 1
		if e.Mode&0o170000 == ModeDir {
			nlink = 2
		}
		ino := i + 1
		if e.Name == "TRAILER!!!" {
			ino = 0
		}
		hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
			ino, e.Mode, 0, 0, nlink, 0, len(e.Data), 0, 0, e.Major, e.Minor, len(e.Name)+1, 0)
		if _, err := io.WriteString(w, hdr+e.Name+"\x00"+pad(len(hdr)+len(e.Name)+1)); err != nil {
			return err
		}
		if _, err := w.Write(e.Data); err != nil {
			return err
		}
		if _, err := io.WriteString(w, pad(len(e.Data))); err != nil {
			return err
		}
	}
	return nil
}

// pad returns the NULs that bring n up to a multiple of 4.
func pad(n int) string { return "\x00\x00\x00"[:(4-n%4)%4] }
