// Package hostpath resolves host paths a task names (docker volumes and
// bind mounts, qemu images and argument paths) the way the kernel or the
// engine would follow them, so a driver can check where they really lead
// before handing them on.
package hostpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// EvalExisting evaluates the symlinks of the longest existing prefix of the
// clean absolute path p and appends the rest. A dangling symlink in p is an
// error: whoever creates the missing part (the engine, qemu) would create
// it at the symlink's target.
func EvalExisting(p string) (string, error) {
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%q is a dangling symlink", p)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// Within reports whether the clean path p is dir or below it (both
// already resolved: Within compares names, it follows nothing).
func Within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
