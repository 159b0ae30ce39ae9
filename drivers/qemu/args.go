package qemu

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/hostpath"
)

// guestTextFlags take a value that is text for the guest, not a host path
// (the kernel command line), so their value is not checked as one.
var guestTextFlags = map[string]bool{"-append": true}

// checkArgs checks a task's args against the plugin config before qemu
// runs. With no args_allowlist, any args are refused (a flag such as
// -drive file=/etc/shadow or -pidfile /tmp/x reads or writes host files).
// With one, each flag (a word starting with "-"; "--x" is "-x", "-x=v" is
// "-x") must be in it, and every host path a value names (a word or a
// comma-separated component that looks like a path, or the value of a key
// such as file=, path=, script=; a file:, unix: or pipe: prefix is
// stripped; relative paths start in the task dir, qemu's working
// directory) must resolve, symlinks evaluated, inside the allocation
// directory or the plugin's image_paths. Errors wrap ErrArgNotAllowed or
// ErrPathNotAllowed and name the argument.
func checkArgs(args, allowlist []string, cfg *base.TaskConfig, imagePaths []string) error {
	if len(args) == 0 {
		return nil
	}
	if len(allowlist) == 0 {
		return fmt.Errorf("args %q: refused because the qemu plugin config has no args_allowlist: %w", args, ErrArgNotAllowed)
	}
	allowed := map[string]bool{}
	for _, a := range allowlist {
		allowed[flagName(a)] = true
	}
	prev := ""
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			if f := flagName(a); !allowed[f] {
				return fmt.Errorf("args[%d]: %q is not in the qemu plugin's args_allowlist %v: %w", i, f, allowlist, ErrArgNotAllowed)
			}
			prev = flagName(a)
			continue
		}
		if !guestTextFlags[prev] {
			for _, p := range argPaths(a) {
				if err := checkArgPath(p, cfg, imagePaths); err != nil {
					return fmt.Errorf("args[%d] %q: %w", i, a, err)
				}
			}
		}
		prev = ""
	}
	return nil
}

// flagName is a flag without its value and with one leading dash.
func flagName(a string) string {
	if strings.HasPrefix(a, "--") {
		a = a[1:]
	}
	name, _, _ := strings.Cut(a, "=")
	return name
}

// pathKeys are option keys whose value is a host path.
var pathKeys = map[string]bool{"file": true, "path": true, "script": true, "downscript": true, "filename": true,
	"logfile": true, "pidfile": true, "socket": true, "sock": true, "dir": true, "romfile": true, "kernel": true,
	"initrd": true, "dtb": true, "bios": true, "device": true, "br": true, "helper": true, "smb": true, "tftp": true}

// argPaths returns the host paths a value word names (see checkArgs).
func argPaths(word string) []string {
	var out []string
	word = strings.ReplaceAll(word, ",,", "\x00") // QEMU's escaped comma
	for _, c := range strings.Split(word, ",") {
		c = strings.ReplaceAll(c, "\x00", ",")
		key, val, hasKey := strings.Cut(c, "=")
		if !hasKey {
			val = c
		}
		for _, pre := range []string{"file:", "unix:", "pipe:"} {
			val = strings.TrimPrefix(val, pre)
		}
		if (hasKey && pathKeys[key] && val != "") || looksLikePath(val) {
			out = append(out, val)
		}
	}
	return out
}

func looksLikePath(s string) bool {
	return strings.ContainsRune(s, '/') || s == "." || s == ".."
}

// checkArgPath resolves p (relative: in the task dir) with its longest
// existing prefix's symlinks evaluated, and requires it inside the alloc
// dir, the task dir or an image_paths directory.
func checkArgPath(p string, cfg *base.TaskConfig, imagePaths []string) error {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cfg.TaskDir, p)
	}
	real, err := hostpath.EvalExisting(filepath.Clean(p))
	if err != nil {
		return fmt.Errorf("host path %q: %w: %w", p, ErrPathNotAllowed, err)
	}
	for _, dir := range append([]string{cfg.AllocDir, cfg.TaskDir}, imagePaths...) {
		if dir == "" {
			continue
		}
		if d, err := filepath.EvalSymlinks(dir); err == nil && hostpath.Within(real, d) {
			return nil
		}
	}
	return fmt.Errorf("host path %q is outside the allocation directory and the qemu plugin's image_paths %v: %w",
		p, imagePaths, ErrPathNotAllowed)
}
