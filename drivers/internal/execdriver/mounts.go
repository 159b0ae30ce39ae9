package execdriver

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// mountEntry is one line of /proc/self/mountinfo: where it is mounted and
// its per-mount options (rw/ro, nosuid, nodev, noexec, atime).
type mountEntry struct {
	Point   string
	Options []string
}

// parseMountinfo parses /proc/<pid>/mountinfo text (proc(5)): field 5 is
// the mount point (octal-escaped), field 6 the per-mount options.
func parseMountinfo(text string) ([]mountEntry, error) {
	var out []mountEntry
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 6 {
			return nil, fmt.Errorf("parsing mountinfo line %q", line)
		}
		out = append(out, mountEntry{Point: unescapeMountPath(f[4]), Options: strings.Split(f[5], ",")})
	}
	return out, nil
}

// unescapeMountPath undoes the kernel's \ooo escapes (space, tab, newline,
// backslash) in mountinfo paths.
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// remountFlags maps per-mount options to the flags a read-only bind
// remount must repeat so that it keeps nosuid, nodev, noexec and the atime
// mode (a bind remount resets what it is not given).
func remountFlags(opts []string) uintptr {
	flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY)
	for _, o := range opts {
		switch o {
		case "nosuid":
			flags |= syscall.MS_NOSUID
		case "nodev":
			flags |= syscall.MS_NODEV
		case "noexec":
			flags |= syscall.MS_NOEXEC
		case "noatime":
			flags |= syscall.MS_NOATIME
		case "nodiratime":
			flags |= syscall.MS_NODIRATIME
		case "relatime":
			flags |= syscall.MS_RELATIME
		case "strictatime":
			flags |= syscall.MS_STRICTATIME
		}
	}
	return flags
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// readOnlyTargets returns the mount points to remount read-only: all but
// /proc and what is below it (replaced by a new proc), /dev/pts (pty
// allocation), /dev/shm (replaced by a private tmpfs) and the writable dirs
// with what is mounted below them.
func readOnlyTargets(mounts []mountEntry, writable []string) []mountEntry {
	var out []mountEntry
	for _, m := range mounts {
		skip := under(m.Point, "/proc") || under(m.Point, "/dev/pts") || under(m.Point, "/dev/shm")
		for _, w := range writable {
			skip = skip || under(m.Point, w)
		}
		if !skip {
			out = append(out, m)
		}
	}
	return out
}

// setupMounts runs in the init, as root, in its new mount namespace: it
// makes every mount private (nothing propagates back to the host), binds
// the writable dirs onto themselves and the host volumes into the task
// dir, remounts everything else read-only,
// gives the task a private /dev/shm and a /proc of its PID namespace with
// a read-only /proc/sys.
func setupMounts(writable []string, volumes []bindMount) error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	for _, w := range writable {
		if err := syscall.Mount(w, w, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("binding %s: %w", w, err)
		}
	}
	if err := bindVolumes(volumes); err != nil { // volumes.go
		return err
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("reading mountinfo: %w", err)
	}
	mounts, err := parseMountinfo(string(b))
	if err != nil {
		return err
	}
	for _, m := range readOnlyTargets(mounts, writable) {
		err := syscall.Mount("", m.Point, "", remountFlags(m.Options), "")
		if err != nil && !os.IsNotExist(err) { // ENOENT: under a mount shadowed since
			return fmt.Errorf("remounting %s read-only: %w", m.Point, err)
		}
	}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		err := syscall.Mount("shm", "/dev/shm", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "mode=1777,size=65536k")
		if err != nil {
			return fmt.Errorf("mounting /dev/shm: %w", err)
		}
	}
	return mountProc()
}

// mountProc mounts a proc of the new PID namespace over /proc, so the task
// sees only its own processes, and makes its /proc/sys read-only.
func mountProc() error {
	const procFlags = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC
	if err := syscall.Mount("proc", "/proc", "proc", procFlags, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	sys := filepath.Join("/proc", "sys")
	if err := syscall.Mount(sys, sys, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("binding /proc/sys: %w", err)
	}
	if err := syscall.Mount("", sys, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|procFlags, ""); err != nil {
		return fmt.Errorf("remounting /proc/sys read-only: %w", err)
	}
	return nil
}
