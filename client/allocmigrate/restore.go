package allocmigrate

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Errors of Restore.
var (
	ErrOutside  = errors.New("allocmigrate: entry outside the migrated directories")
	ErrSymlink  = errors.New("allocmigrate: entry through a symlink")
	ErrTooLarge = errors.New("allocmigrate: snapshot larger than the ephemeral disk")
)

// Restore extracts a Snapshot stream from r into allocDir. Every entry
// must lie in one of Roots(tasks) (no absolute names, no ".."), and none is
// written through a symlink, whatever the stream's order: an entry whose
// parent is a symlink is refused with ErrSymlink. File contents beyond
// maxBytes in total (<= 0: no limit) fail with ErrTooLarge. Existing files
// are replaced; owners are kept when the caller may set them (root).
func Restore(r io.Reader, allocDir string, tasks []string, maxBytes int64) error {
	if err := os.MkdirAll(allocDir, 0o755); err != nil {
		return err
	}
	roots := Roots(tasks)
	tr := tar.NewReader(r)
	var total int64
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading snapshot: %w", err)
		}
		name, err := entryName(hdr.Name, roots)
		if err != nil {
			return err
		}
		target := filepath.Join(allocDir, filepath.FromSlash(name))
		if err := mkdirParents(allocDir, name); err != nil {
			return err
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = restoreDir(target, hdr)
		case tar.TypeReg:
			if maxBytes > 0 && total+hdr.Size > maxBytes {
				return fmt.Errorf("%w (%d MB)", ErrTooLarge, maxBytes>>20)
			}
			total += hdr.Size
			err = restoreFile(target, hdr, tr)
		case tar.TypeSymlink:
			if err = removeNonDir(target); err == nil {
				err = os.Symlink(hdr.Linkname, target)
			}
		default:
			continue // not written by Snapshot
		}
		if err != nil {
			return fmt.Errorf("restoring %s: %w", name, err)
		}
		_ = os.Lchown(target, hdr.Uid, hdr.Gid)
	}
}

// entryName cleans a tar entry name and checks it is one of roots or
// below one.
func entryName(raw string, roots []string) (string, error) {
	if raw == "" || strings.HasPrefix(raw, "/") || strings.Contains(raw, "\\") {
		return "", fmt.Errorf("%w: %q", ErrOutside, raw)
	}
	name := path.Clean(raw)
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: %q", ErrOutside, raw)
		}
	}
	for _, r := range roots {
		if name == r || strings.HasPrefix(name, r+"/") {
			return name, nil
		}
	}
	return "", fmt.Errorf("%w: %q", ErrOutside, raw)
}

// mkdirParents creates the missing parents of name under root (0755),
// refusing a parent that is a symlink or not a directory.
func mkdirParents(root, name string) error {
	dir := path.Dir(name)
	p := root
	for _, part := range strings.Split(dir, "/") {
		if part == "." {
			continue
		}
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := os.Mkdir(p, 0o755); err != nil {
				return err
			}
		case err != nil:
			return err
		case st.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("%w: %s", ErrSymlink, name)
		case !st.IsDir():
			return fmt.Errorf("restoring %s: %s is not a directory", name, p)
		}
	}
	return nil
}

func restoreDir(target string, hdr *tar.Header) error {
	st, err := os.Lstat(target)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.Mkdir(target, os.FileMode(hdr.Mode).Perm())
	case err != nil:
		return err
	case !st.IsDir():
		if err := os.Remove(target); err != nil {
			return err
		}
		return os.Mkdir(target, os.FileMode(hdr.Mode).Perm())
	}
	return os.Chmod(target, os.FileMode(hdr.Mode).Perm())
}

func restoreFile(target string, hdr *tar.Header, r io.Reader) error {
	if err := removeNonDir(target); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscallNoFollow, os.FileMode(hdr.Mode).Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, io.LimitReader(r, hdr.Size)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// removeNonDir removes what is at target unless it is a directory (an
// entry may not replace a directory with a file).
func removeNonDir(target string) error {
	st, err := os.Lstat(target)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("%s is a directory", target)
	}
	return os.Remove(target)
}
