package allocfs

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/structs"
)

// Refusals (coded errors: the HTTP status is the code).
var (
	// ErrEscapes: the path climbs above the allocation directory ("..").
	ErrEscapes = structs.NewCodedError(structs.ErrCodeBadRequest, "path escapes the allocation directory")
	// ErrSymlinkEscapes: the path's symlinks lead outside the allocation
	// directory.
	ErrSymlinkEscapes = structs.NewCodedError(403, "path leads outside the allocation directory through a symlink")
	// ErrSecrets: the path is in a task's secrets directory (as Nomad:
	// "Reading secret file prohibited").
	ErrSecrets = structs.NewCodedError(403, "reading secret file prohibited: task secrets directories are not served")
	// ErrIsDir: a file operation (cat, readat) named a directory.
	ErrIsDir = structs.NewCodedError(structs.ErrCodeBadRequest, "path is a directory")
)

// FileInfo is one file or directory, as Nomad's api.AllocFileInfo.
// ContentType is set by Stat for files (sniffed from the first 512 bytes).
type FileInfo struct {
	Name        string
	IsDir       bool
	Size        int64
	FileMode    string
	ModTime     time.Time
	ContentType string `json:",omitempty"`
}

func newFileInfo(fi fs.FileInfo) *FileInfo {
	return &FileInfo{Name: fi.Name(), IsDir: fi.IsDir(), Size: fi.Size(),
		FileMode: fi.Mode().String(), ModTime: fi.ModTime()}
}

// Resolve returns p as a clean path relative to dir ("." for the
// directory itself; a leading "/" means dir): ErrEscapes when p climbs
// above dir, ErrSymlinkEscapes when a symlink of p leads outside it,
// ErrSecrets when it leads into a task's secrets directory, a 404 coded
// error when p does not exist.
func Resolve(dir, p string) (string, error) {
	depth := 0
	for _, el := range strings.Split(filepath.ToSlash(p), "/") {
		switch el {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return "", ErrEscapes
			}
		default:
			depth++
		}
	}
	rel := filepath.Clean("/" + p)[1:]
	if rel == "" {
		rel = "."
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", notFound(err, p)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, rel))
	if err != nil {
		return "", notFound(err, p)
	}
	r, err := filepath.Rel(realDir, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", ErrSymlinkEscapes
	}
	if inSecrets(r) {
		return "", ErrSecrets
	}
	return rel, nil
}

// inSecrets reports whether the resolved relative path r is in (or is) a
// task's secrets directory: <task>/secrets, where <task> is any top-level
// directory but the shared "alloc".
func inSecrets(r string) bool {
	parts := strings.SplitN(filepath.ToSlash(r), "/", 3)
	return len(parts) >= 2 && parts[0] != allocdir.SharedAllocName && parts[1] == allocdir.TaskSecrets
}

// notFound turns a missing path into a 404 and keeps other errors.
func notFound(err error, p string) error {
	if errors.Is(err, fs.ErrNotExist) {
		return structs.NewCodedError(structs.ErrCodeNotFound, "no such file or directory: %q", p)
	}
	return err
}

// open resolves p in dir and opens it through an os.Root of dir.
func open(dir, p string) (*os.File, error) {
	rel, err := Resolve(dir, p)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, notFound(err, p)
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notFound(err, p)
		}
		return nil, ErrSymlinkEscapes // os.Root refuses only escapes here
	}
	return f, nil
}

// List returns the entries of directory p of dir (symlinks as themselves,
// not followed), sorted by name.
func List(dir, p string) ([]*FileInfo, error) {
	f, err := open(dir, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "%q is not a directory", p)
	}
	out := make([]*FileInfo, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, newFileInfo(fi))
	}
	slices.SortFunc(out, func(a, b *FileInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Stat describes p of dir; a file's ContentType is sniffed from its first
// 512 bytes.
func Stat(dir, p string) (*FileInfo, error) {
	f, err := open(dir, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	info := newFileInfo(fi)
	if !fi.IsDir() {
		buf := make([]byte, 512)
		n, _ := io.ReadFull(f, buf)
		info.ContentType = http.DetectContentType(buf[:n])
	}
	return info, nil
}

// Open opens file p of dir for reading (ErrIsDir for a directory); the
// caller closes it.
func Open(dir, p string) (*os.File, error) {
	f, err := open(dir, p)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		f.Close()
		if err != nil {
			return nil, err
		}
		return nil, ErrIsDir
	}
	return f, nil
}
