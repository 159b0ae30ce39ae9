package allocmigrate

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Roots returns the directories of an allocation directory that migrate,
// relative and slash-separated: "alloc/data" and "<task>/local" for each
// task.
func Roots(tasks []string) []string {
	out := []string{"alloc/data"}
	for _, t := range tasks {
		out = append(out, path.Join(t, "local"))
	}
	return out
}

// Snapshot writes the Roots of allocDir to w as a tar stream: directories,
// regular files and symlinks (never followed), with their modes and
// owners, names relative to allocDir. A missing root is left out. Other
// file types (sockets, FIFOs, devices) are skipped.
func Snapshot(w io.Writer, allocDir string, tasks []string) error {
	tw := tar.NewWriter(w)
	for _, root := range Roots(tasks) {
		base := filepath.Join(allocDir, filepath.FromSlash(root))
		if st, err := os.Lstat(base); err != nil || !st.IsDir() {
			continue // absent, or a task replaced it with something else
		}
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return addEntry(tw, allocDir, p, d)
		})
		if err != nil {
			return fmt.Errorf("snapshot of %s: %w", root, err)
		}
	}
	return tw.Close()
}

func addEntry(tw *tar.Writer, allocDir, p string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while walking
		}
		return err
	}
	link := ""
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		if link, err = os.Readlink(p); err != nil {
			return err
		}
	case info.IsDir(), info.Mode().IsRegular():
	default:
		return nil
	}
	hdr, err := tar.FileInfoHeader(info, link)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(allocDir, p)
	if err != nil {
		return err
	}
	hdr.Name = filepath.ToSlash(rel)
	if info.IsDir() {
		hdr.Name += "/"
	}
	hdr.Uname, hdr.Gname = "", ""
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	// A file that grew since its header was written is cut at the header's
	// size; one that shrank fails the snapshot (tar needs the full size).
	_, err = io.Copy(tw, io.LimitReader(f, hdr.Size))
	return err
}
