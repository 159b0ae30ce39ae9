package image

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// rawImage writes a 4 MiB sparse raw image with a marker 1 MiB in.
func rawImage(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(4 << 20); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("nomadish-disk-marker"), 1<<20); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	return b
}

func qcow2Image(t *testing.T, path string, sizeMB string) {
	t.Helper()
	if out, err := exec.Command("qemu-img", "create", "-q", "-f", "qcow2", path, sizeMB+"M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img create: %v: %s", err, out)
	}
}

func dirs(t *testing.T) (images, task, dest string) {
	root := t.TempDir()
	images, task = filepath.Join(root, "images"), filepath.Join(root, "task")
	for _, d := range []string{images, task} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return images, task, filepath.Join(root, "data", "disk")
}

func TestPrepareCopiesRawSparse(t *testing.T) {
	images, task, dest := dirs(t)
	want := rawImage(t, filepath.Join(images, "base.raw"))
	d, err := Prepare(Request{Image: filepath.Join(images, "base.raw"), TaskDir: task, AllowedPaths: []string{images}, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if d.Path != dest || d.Format != "raw" {
		t.Fatalf("disk %+v", d)
	}
	got, err := os.ReadFile(dest)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("copy differs (err %v)", err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(dest, &st); err != nil {
		t.Fatal(err)
	}
	if st.Blocks*512 >= int64(len(want)) {
		t.Fatalf("copy is not sparse: %d bytes allocated of %d", st.Blocks*512, len(want))
	}
}

func TestPrepareThinCopyIsBackedOverlay(t *testing.T) {
	images, task, dest := dirs(t)
	for _, tc := range []struct{ name, format string }{{"base.qcow2", "qcow2"}, {"base.raw", "raw"}} {
		base := filepath.Join(images, tc.name)
		if tc.format == "qcow2" {
			qcow2Image(t, base, "8")
		} else {
			rawImage(t, base)
		}
		if f, err := Format(base); err != nil || f != tc.format {
			t.Fatalf("Format(%s) = %q, %v", tc.name, f, err)
		}
		d, err := Prepare(Request{Image: base, TaskDir: task, AllowedPaths: []string{images}, Dest: dest, ThinCopy: true})
		if err != nil {
			t.Fatal(err)
		}
		info, err := Inspect(dest, "qcow2")
		if err != nil {
			t.Fatal(err)
		}
		if d.Format != "qcow2" || info.Format != "qcow2" || info.BackingFilename != base || info.BackingFormat != tc.format {
			t.Fatalf("%s: disk %+v info %+v", tc.name, d, info)
		}
		if err := Remove(dest); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPrepareGrows(t *testing.T) {
	images, task, dest := dirs(t)
	rawImage(t, filepath.Join(images, "base.raw"))
	for _, thin := range []bool{false, true} {
		d, err := Prepare(Request{Image: filepath.Join(images, "base.raw"), TaskDir: task, AllowedPaths: []string{images},
			Dest: dest, ThinCopy: thin, SizeMB: 16})
		if err != nil {
			t.Fatal(err)
		}
		info, err := Inspect(d.Path, d.Format)
		if err != nil {
			t.Fatal(err)
		}
		if info.VirtualSize != 16<<20 {
			t.Fatalf("thin %v: virtual size %d, want %d", thin, info.VirtualSize, 16<<20)
		}
		_ = Remove(dest)
	}
}

func TestPrepareNeverShrinks(t *testing.T) {
	images, task, dest := dirs(t)
	rawImage(t, filepath.Join(images, "base.raw"))
	_, err := Prepare(Request{Image: filepath.Join(images, "base.raw"), TaskDir: task, AllowedPaths: []string{images}, Dest: dest, SizeMB: 2})
	if err == nil || !strings.Contains(err.Error(), "primary_disk_size 2 MB is smaller than the image's 4 MB") ||
		!strings.Contains(err.Error(), "base.raw") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed Prepare left %s: %v", dest, err)
	}
}

func TestPrepareRelativeToTaskDir(t *testing.T) {
	_, task, dest := dirs(t)
	rawImage(t, filepath.Join(task, "local.raw"))
	d, err := Prepare(Request{Image: "local.raw", TaskDir: task, Dest: dest})
	if err != nil || d.Format != "raw" {
		t.Fatalf("disk %+v err %v", d, err)
	}
}

func TestPrepareRejectsOutsideAllowed(t *testing.T) {
	images, task, dest := dirs(t)
	other := t.TempDir()
	rawImage(t, filepath.Join(other, "secret.raw"))
	// Directly, and through a symlink in the task dir.
	if err := os.Symlink(filepath.Join(other, "secret.raw"), filepath.Join(task, "link.raw")); err != nil {
		t.Fatal(err)
	}
	for _, img := range []string{filepath.Join(other, "secret.raw"), "link.raw"} {
		_, err := Prepare(Request{Image: img, TaskDir: task, AllowedPaths: []string{images}, Dest: dest})
		if err == nil || !strings.Contains(err.Error(), img) {
			t.Fatalf("%s: err %v, want one naming the image", img, err)
		}
		if !errors.Is(err, ErrNotAllowed) || !strings.Contains(err.Error(), images) {
			t.Fatalf("%s: err %v, want ErrNotAllowed naming %s", img, err, images)
		}
	}
}

func TestPrepareMissingImage(t *testing.T) {
	images, task, dest := dirs(t)
	_, err := Prepare(Request{Image: filepath.Join(images, "nope.qcow2"), TaskDir: task, AllowedPaths: []string{images}, Dest: dest})
	if err == nil || !strings.Contains(err.Error(), "nope.qcow2") {
		t.Fatalf("err %v", err)
	}
}

func TestRemoveMissingIsFine(t *testing.T) {
	if err := Remove(filepath.Join(t.TempDir(), "gone")); err != nil {
		t.Fatal(err)
	}
}
