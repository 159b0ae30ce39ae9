package template

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Dirs are the directories a task's templates may write into and read from.
type Dirs struct {
	TaskDir  string // <alloc dir>/<task>: local/, secrets/, tmp/
	AllocDir string // the allocation's shared dir (NOMAD_ALLOC_DIR)
}

// Resolve maps a destination, already interpolated, to the directory it
// lands in (the task dir or the shared alloc dir) and its path inside it.
// A relative path is relative to the task dir, where "alloc/..." (or
// "../alloc/...") names the shared alloc dir; an absolute path must lie
// inside one of the two. Anything else is ErrEscapes. Symlinks are not
// resolved here: WriteFile and ReadFile refuse to follow one out of root.
func (d Dirs) Resolve(p string) (root, rel string, err error) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", "", fmt.Errorf("invalid path %q", p)
	}
	abs := filepath.Clean(p)
	if !filepath.IsAbs(p) {
		switch {
		case abs == "alloc" || strings.HasPrefix(abs, "alloc/"):
			abs = filepath.Join(d.AllocDir, strings.TrimPrefix(abs, "alloc"))
		case abs == "../alloc" || strings.HasPrefix(abs, "../alloc/"):
			abs = filepath.Join(d.AllocDir, strings.TrimPrefix(abs, "../alloc"))
		default:
			abs = filepath.Join(d.TaskDir, abs)
		}
	}
	for _, r := range []string{d.TaskDir, d.AllocDir} {
		if r == "" {
			continue
		}
		if rel, ok := inside(r, abs); ok {
			return r, rel, nil
		}
	}
	return "", "", fmt.Errorf("%w: %q is outside %s and %s", ErrEscapes, p, d.TaskDir, d.AllocDir)
}

// inside reports whether abs is strictly below root, and its relative path.
func inside(root, abs string) (string, bool) {
	rel, err := filepath.Rel(filepath.Clean(root), abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// ReadTaskFile reads p (relative to the task dir, or absolute inside it)
// without following a symlink out of the task dir: template sources and
// the file function read only there.
func ReadTaskFile(taskDir, p string) ([]byte, error) {
	root, rel, err := Dirs{TaskDir: taskDir}.Resolve(p)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := r.ReadFile(rel)
	if err != nil {
		return nil, rootErr(p, err)
	}
	return b, nil
}

// rootErr turns os.Root's escape refusal into ErrEscapes.
func rootErr(p string, err error) error {
	if strings.Contains(err.Error(), "path escapes from parent") {
		return fmt.Errorf("%w: %q (through a symlink)", ErrEscapes, p)
	}
	return err
}

// WriteFile writes content to rel under root (from Resolve) atomically
// (a temporary file renamed over it), creating parent directories, with
// perm and, when set (not nil, not -1), the owner. It writes nothing and
// reports false when the file already holds content with that mode. No
// path component may be a symlink leading out of root.
func WriteFile(root, rel string, content []byte, perm os.FileMode, uid, gid *int) (bool, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return false, err
	}
	defer r.Close()
	if old, err := r.ReadFile(rel); err == nil && bytes.Equal(old, content) {
		if fi, err := r.Stat(rel); err == nil && fi.Mode().Perm() == perm {
			return false, nil
		}
	} else if err != nil && !isNotExist(err) {
		return false, rootErr(rel, err)
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return false, rootErr(rel, err)
		}
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".tmp-"+hex.EncodeToString(rnd[:]))
	if err := r.WriteFile(tmp, content, perm); err != nil {
		return false, rootErr(rel, err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = r.Remove(tmp)
		}
	}()
	if err := r.Chmod(tmp, perm); err != nil {
		return false, err
	}
	if uid != nil || gid != nil {
		u, g := -1, -1
		if uid != nil {
			u = *uid
		}
		if gid != nil {
			g = *gid
		}
		if err := r.Chown(tmp, u, g); err != nil {
			return false, fmt.Errorf("setting the owner of %q: %w", rel, err)
		}
	}
	if err := r.Rename(tmp, rel); err != nil {
		return false, rootErr(rel, err)
	}
	ok = true
	return true, nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
