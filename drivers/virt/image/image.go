// Package image prepares a virt task's primary disk: it resolves the task's
// image against the plugin's allowed image_paths (or the task's own
// directory, where artifacts land), and either copies it or, with
// use_thin_copy, creates a qcow2 overlay backed by it, then grows it to
// primary_disk_size. It runs qemu-img (Debian's qemu-utils) and cp.
package image

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/nomadish/nomadish/drivers/internal/hostpath"
)

// ErrNotAllowed is wrapped by Prepare's error when the image lies outside
// the task directory and the allowed paths.
var ErrNotAllowed = errors.New("not in the task directory or the virt plugin's image_paths")

// Request is one task's disk.
type Request struct {
	// Image is the task config's `image`: absolute, or relative to TaskDir.
	Image string
	// TaskDir is the task's directory; AllowedPaths the plugin's image_paths.
	TaskDir      string
	AllowedPaths []string
	// Dest is where the disk is written (in the plugin's data dir).
	Dest string
	// ThinCopy asks for a qcow2 overlay instead of a full copy.
	ThinCopy bool
	// SizeMB grows the disk to this size (0: leave it).
	SizeMB int64
}

// Disk is a prepared disk: its path and format ("qcow2" or "raw").
type Disk struct {
	Path   string
	Format string
}

// Prepare resolves, copies or overlays and resizes. Errors name the image.
// On error nothing is left at Dest.
func Prepare(r Request) (Disk, error) {
	src, err := Resolve(r.Image, r.TaskDir, r.AllowedPaths)
	if err != nil {
		return Disk{}, err
	}
	if r.Dest == "" {
		return Disk{}, fmt.Errorf("image %q: no destination path", r.Image)
	}
	format, err := Format(src)
	if err != nil {
		return Disk{}, fmt.Errorf("image %q: %w", r.Image, err)
	}
	if err := os.MkdirAll(filepath.Dir(r.Dest), 0o755); err != nil {
		return Disk{}, err
	}
	d := Disk{Path: r.Dest, Format: format}
	if r.ThinCopy {
		d.Format = "qcow2"
		err = run("qemu-img", "create", "-q", "-f", "qcow2", "-F", format, "-b", src, r.Dest)
	} else {
		err = run("cp", "--sparse=always", "--", src, r.Dest)
	}
	if err == nil && r.SizeMB > 0 {
		err = grow(d, r.SizeMB)
	}
	if err != nil {
		_ = os.Remove(r.Dest)
		return Disk{}, fmt.Errorf("image %q: %w", r.Image, err)
	}
	return d, nil
}

// Resolve finds image (absolute, or relative to taskDir) and, with its
// symlinks resolved, requires it to be a regular file inside taskDir or
// one of allowed (also resolved). The error names the image and allowed.
func Resolve(image, taskDir string, allowed []string) (string, error) {
	if image == "" {
		return "", errors.New("image: no image given")
	}
	p := image
	if !filepath.IsAbs(p) {
		p = filepath.Join(taskDir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("image %q: %w", image, err)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("image %q is not a regular file", image)
	}
	for _, dir := range append([]string{taskDir}, allowed...) {
		if dir == "" {
			continue
		}
		if d, err := filepath.EvalSymlinks(dir); err == nil && hostpath.Within(real, d) {
			return real, nil
		}
	}
	return "", fmt.Errorf("image %q (%s) is outside the task directory and image_paths %v: %w",
		image, real, allowed, ErrNotAllowed)
}

// qcow2Magic starts every qcow2 file.
var qcow2Magic = []byte("QFI\xfb")

// Format is "qcow2" when the file starts with qcow2's magic, else "raw".
func Format(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, len(qcow2Magic))
	if _, err := io.ReadFull(f, head); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	if bytes.Equal(head, qcow2Magic) {
		return "qcow2", nil
	}
	return "raw", nil
}

// Info is what qemu-img info says about a disk.
type Info struct {
	Format          string `json:"format"`
	VirtualSize     int64  `json:"virtual-size"`
	BackingFilename string `json:"backing-filename"`
	BackingFormat   string `json:"backing-filename-format"`
}

// Inspect runs qemu-img info on path, read as format.
func Inspect(path, format string) (Info, error) {
	out, err := output("qemu-img", "info", "--output=json", "-f", format, "--", path)
	if err != nil {
		return Info{}, err
	}
	var i Info
	if err := json.Unmarshal(out, &i); err != nil {
		return Info{}, fmt.Errorf("qemu-img info %s: %w", path, err)
	}
	return i, nil
}

// grow resizes d to sizeMB MiB; a smaller size than the disk's is an error.
func grow(d Disk, sizeMB int64) error {
	info, err := Inspect(d.Path, d.Format)
	if err != nil {
		return err
	}
	want := sizeMB << 20
	switch {
	case want < info.VirtualSize:
		return fmt.Errorf("primary_disk_size %d MB is smaller than the image's %d MB (%d bytes): disks are never shrunk",
			sizeMB, info.VirtualSize>>20, info.VirtualSize)
	case want == info.VirtualSize:
		return nil
	}
	return run("qemu-img", "resize", "-q", "-f", d.Format, "--", d.Path, strconv.FormatInt(want, 10))
}

// Remove deletes a disk Prepare made (a missing file is not an error).
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("image: removing %s: %w", path, err)
	}
	return nil
}

func run(name string, args ...string) error {
	_, err := output(name, args...)
	return err
}

// output runs a tool and returns its stdout; its error carries stderr.
func output(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if errors.Is(err, exec.ErrNotFound) {
		return nil, fmt.Errorf("%s is not installed (Debian: qemu-utils for qemu-img): %w", name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w: %s", name, args, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}
