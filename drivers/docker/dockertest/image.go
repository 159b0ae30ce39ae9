// Package dockertest builds the local test image the docker driver's tests
// and the end-to-end tests run, so they need no registry: an image
// imported from a rootfs tarball holding the static busybox of the
// busybox-static package and its applet symlinks.
package dockertest

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
)

// Image is the test image's reference.
const Image = "nomadish-test/busybox:1"

// BusyboxPath is the static busybox put into the image.
const BusyboxPath = "/bin/busybox"

// applets get a /bin symlink to busybox.
var applets = []string{"sh", "echo", "sleep", "cat", "ls", "env", "true", "false", "kill", "head", "dd", "yes", "id", "printf", "mkdir", "rm", "touch", "ps", "wc", "grep", "test"}

var once struct {
	sync.Mutex
	done bool
}

// EnsureImage imports Image into the engine at host (empty: the default
// engine, DOCKER_HOST) unless it is already there. Safe to call from many
// tests and processes; the image is left in place for the next run.
func EnsureImage(ctx context.Context, host string) error {
	once.Lock()
	defer once.Unlock()
	if once.done {
		return nil
	}
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	cli, err := client.NewClientWithOpts(opts...)
	if err != nil {
		return fmt.Errorf("dockertest: %w", err)
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, Image); err == nil {
		once.done = true
		return nil
	}
	rootfs, err := rootfsTar()
	if err != nil {
		return err
	}
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: bytes.NewReader(rootfs), SourceName: "-"}, Image,
		image.ImportOptions{Changes: []string{`CMD ["/bin/sh"]`, `ENV PATH=/bin`}})
	if err != nil {
		return fmt.Errorf("dockertest: importing %s: %w", Image, err)
	}
	_, _ = bytes.NewBuffer(nil).ReadFrom(rc)
	rc.Close()
	if _, err := cli.ImageInspect(ctx, Image); err != nil {
		return fmt.Errorf("dockertest: %s not there after import: %w", Image, err)
	}
	once.done = true
	return nil
}

// rootfsTar returns a tarball with /bin/busybox, its applet symlinks and
// empty /tmp, /etc, /proc, /sys and /dev.
func rootfsTar() ([]byte, error) {
	bb, err := os.ReadFile(BusyboxPath)
	if err != nil {
		return nil, fmt.Errorf("dockertest: reading %s (install busybox-static): %w", BusyboxPath, err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	now := time.Now()
	for _, d := range []string{"bin/", "tmp/", "etc/", "proc/", "sys/", "dev/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: now}); err != nil {
			return nil, err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: int64(len(bb)), ModTime: now}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bb); err != nil {
		return nil, err
	}
	for _, a := range applets {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", ModTime: now}); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
