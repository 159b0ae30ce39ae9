package getter

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// within reports whether path is root or below it (both clean and absolute).
func within(root, path string) bool {
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator))
}

// realPrefix resolves the symlinks of the longest existing prefix of path
// and appends the rest: where a write to path would land today.
func realPrefix(path string) (string, error) {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || p == filepath.Dir(p) {
			return "", err
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// destination returns the absolute destination of dest (relative to
// taskDir; an absolute dest is relative to it too, as in Nomad), refusing
// one that leaves allocDir by its text or through a symlink on the way.
func destination(allocDir, taskDir, dest string) (string, error) {
	alloc, err := filepath.Abs(allocDir)
	if err != nil {
		return "", err
	}
	abs := filepath.Join(taskDir, dest)
	if !within(alloc, abs) {
		return "", fmt.Errorf("%w: destination %q", ErrEscape, dest)
	}
	realAlloc, err := filepath.EvalSymlinks(alloc)
	if err != nil {
		return "", fmt.Errorf("resolving the allocation directory: %w", err)
	}
	real, err := realPrefix(abs)
	if err != nil {
		return "", fmt.Errorf("resolving destination %q: %w", dest, err)
	}
	if !within(realAlloc, real) {
		return "", fmt.Errorf("%w: destination %q resolves to %s", ErrEscape, dest, real)
	}
	return abs, nil
}

// confine refuses a local path outside the allocation directory (after
// resolving its symlinks); a path that does not exist is refused too, so
// that nothing about the client's files is revealed.
func confine(allocDir, path string) error {
	realAlloc, err := filepath.EvalSymlinks(allocDir)
	if err != nil {
		return fmt.Errorf("resolving the allocation directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || !within(realAlloc, real) {
		return fmt.Errorf("%w: local source %q (only paths in the allocation directory may be read; see disable_filesystem_isolation)", ErrEscape, path)
	}
	return nil
}

// inspect walks a finished download and refuses any symlink whose target
// leaves root, by its text or once resolved, and any dangling one.
func inspect(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return err
		}
		lexical := target
		if !filepath.IsAbs(target) {
			lexical = filepath.Join(filepath.Dir(path), target)
		}
		rel, _ := filepath.Rel(root, path)
		if !within(root, filepath.Clean(lexical)) {
			return fmt.Errorf("%w: %s -> %s", ErrSandboxEscape, rel, target)
		}
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil || !within(root, resolved) {
			return fmt.Errorf("%w: %s -> %s", ErrSandboxEscape, rel, target)
		}
		return nil
	})
}

// placeFile moves a downloaded file to dest, replacing what is there
// (a symlink at dest is replaced, never followed).
func placeFile(src, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	if fi, err := os.Lstat(dest); err == nil && fi.IsDir() {
		return fmt.Errorf("destination %s is a directory; a file-mode artifact needs a file path", dest)
	}
	return os.Rename(src, dest)
}

// placeDir merges a downloaded directory into dest: new entries are moved
// in, directories are merged, anything else (files, symlinks) is replaced.
// An existing symlink is never followed.
func placeDir(src, dest string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		// "any" mode fetched a single file: it goes into dest by name.
		return placeFile(src, filepath.Join(dest, filepath.Base(src)))
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		s, d := filepath.Join(src, e.Name()), filepath.Join(dest, e.Name())
		dfi, err := os.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case dfi.IsDir() && e.IsDir():
			if err := placeDir(s, d); err != nil {
				return err
			}
			continue
		default:
			if err := os.RemoveAll(d); err != nil {
				return err
			}
		}
		if err := os.Rename(s, d); err != nil {
			return err
		}
	}
	return nil
}

// chown gives path and everything under it to the named user (symlinks
// themselves, not their targets). Without root it does nothing, as Nomad.
func chown(path, name string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("chown: %w", err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("chown: user %q has no numeric uid/gid", name)
	}
	return filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}
