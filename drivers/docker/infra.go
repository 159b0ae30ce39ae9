package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"

	"github.com/nomadish/nomadish/version"
)

// The infra container's image. With infra_image in the plugin config it is
// that image (pulled when absent, as Nomad). Otherwise the driver builds
// one locally, once per version: an image holding only the nomadish binary
// (and the shared libraries it links, when it is not static) whose command
// is the hidden `plugin pause`, which waits for SIGTERM or SIGINT. Nothing
// is fetched from a registry.

// PauseArgs are the arguments after the executable that run the pause
// program.
var PauseArgs = []string{"plugin", "pause"}

// init runs the pause program when the process was started as one. The
// image holds whichever binary built it (nomadish, or a test binary that
// links this driver), so the entry lives with the driver rather than in
// one main: every binary that can build the image can also run it.
func init() {
	if IsPause(os.Args) {
		os.Exit(RunPause())
	}
}

// PauseImage is the reference of the locally built infra image.
var PauseImage = "nomadish/pause:" + version.Version

// IsPause reports whether args (os.Args) run the pause program.
func IsPause(args []string) bool {
	return len(args) == 3 && args[1] == PauseArgs[0] && args[2] == PauseArgs[1]
}

// RunPause is the infra container's process: it holds the namespace until
// told to stop, and exits 0.
func RunPause() int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	<-sigs
	return 0
}

// pauseBinary is where the executable sits in the pause image.
const pauseBinary = "/nomadish"

// ensureInfraImage returns the infra image reference, pulling infra_image
// or building the pause image when absent.
func (d *Driver) ensureInfraImage(ctx context.Context, cli *client.Client, pc pluginConfig) (string, error) {
	if pc.InfraImage != "" {
		if _, err := ensureImage(ctx, cli, &taskConfig{Image: pc.InfraImage}); err != nil {
			return "", fmt.Errorf("infra_image: %w", err)
		}
		return pc.InfraImage, nil
	}
	d.infraBuild.Lock()
	defer d.infraBuild.Unlock()
	if _, err := cli.ImageInspect(ctx, PauseImage); err == nil {
		return PauseImage, nil
	} else if !errdefs.IsNotFound(err) {
		return "", fmt.Errorf("inspecting %s: %w", PauseImage, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("building %s: %w", PauseImage, err)
	}
	rootfs, err := pauseRootfs(exe)
	if err != nil {
		return "", fmt.Errorf("building %s: %w", PauseImage, err)
	}
	cmd := fmt.Sprintf(`CMD [%q, %q, %q]`, pauseBinary, PauseArgs[0], PauseArgs[1])
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: rootfs, SourceName: "-"}, PauseImage,
		image.ImportOptions{Changes: []string{cmd}})
	if err != nil {
		return "", fmt.Errorf("importing %s: %w", PauseImage, err)
	}
	_, _ = io.Copy(io.Discard, rc)
	rc.Close()
	if _, err := cli.ImageInspect(ctx, PauseImage); err != nil {
		return "", fmt.Errorf("%s not there after import: %w", PauseImage, err)
	}
	d.logger.Info("built the infra image", "image", PauseImage)
	return PauseImage, nil
}

// pauseRootfs returns a tarball of exe at /nomadish plus the shared
// libraries and loader it needs (ldd), at their paths.
func pauseRootfs(exe string) (io.Reader, error) {
	files := map[string]string{pauseBinary: exe}
	libs, err := sharedLibs(exe)
	if err != nil {
		return nil, err
	}
	for _, l := range libs {
		files[l] = l
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	now := time.Now()
	dirs := map[string]bool{}
	for dst := range files {
		for dir := filepath.Dir(dst); dir != "/" && !dirs[dir]; dir = filepath.Dir(dir) {
			dirs[dir] = true
		}
	}
	for _, d := range append([]string{"/proc", "/sys", "/dev", "/etc"}, sortedKeys(dirs)...) {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(d, "/") + "/", Mode: 0o755, ModTime: now}); err != nil {
			return nil, err
		}
	}
	for _, dst := range sortedKeys(files) {
		b, err := os.ReadFile(files[dst]) // follows the library symlinks
		if err != nil {
			return nil, err
		}
		h := &tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(dst, "/"), Mode: 0o755, Size: int64(len(b)), ModTime: now}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return &buf, nil
}

// sharedLibs lists the absolute paths ldd prints for exe; none for a
// static binary or when ldd is absent.
func sharedLibs(exe string) ([]string, error) {
	if _, err := exec.LookPath("ldd"); err != nil {
		return nil, nil
	}
	out, err := exec.Command("ldd", exe).Output()
	if err != nil {
		return nil, nil // "not a dynamic executable" exits 1
	}
	var libs []string
	for _, line := range strings.Split(string(out), "\n") {
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "/") {
				libs = append(libs, f)
				break
			}
		}
	}
	return libs, nil
}
