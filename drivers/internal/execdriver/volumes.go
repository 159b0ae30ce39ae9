package execdriver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/hostpath"
)

// Host volumes (base.TaskConfig.Mounts). exec has no chroot: the task sees
// the host read-only, so a volume is bind-mounted, inside the task's mount
// namespace only, at its destination under the task dir (where Nomad's
// chroot would put it: destination "/data" is <task dir>/data, "data" from
// the task's working directory), read-only when asked. raw_exec has no
// isolation: the task is told each volume's host path in its environment
// (NOMAD_HOST_VOLUME_<name>), as it can read it there directly.

// bindMount is one volume for the init to bind (initSpec.Mounts).
type bindMount struct {
	Source   string
	Target   string
	ReadOnly bool
}

// bindMountsFor resolves cfg's mounts for the init: each target is under
// the task dir, its missing dirs are created (never through a symlink, so
// a task cannot point a later start's mkdir at the host), and each source
// must be a directory.
func bindMountsFor(cfg *base.TaskConfig) ([]bindMount, error) {
	var out []bindMount
	for _, m := range cfg.Mounts {
		st, err := os.Stat(m.HostPath)
		if err != nil {
			return nil, fmt.Errorf("host volume %q: %w", m.Volume, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("host volume %q: %s is not a directory", m.Volume, m.HostPath)
		}
		target := filepath.Join(cfg.TaskDir, filepath.Clean("/"+m.TaskPath))
		if target == filepath.Clean(cfg.TaskDir) || !hostpath.Within(target, cfg.TaskDir) {
			return nil, fmt.Errorf("volume_mount %q: destination %q is not inside the task dir", m.Volume, m.TaskPath)
		}
		if err := mkdirNoSymlinks(cfg.TaskDir, target); err != nil {
			return nil, fmt.Errorf("volume_mount %q: %w", m.Volume, err)
		}
		out = append(out, bindMount{Source: m.HostPath, Target: target, ReadOnly: m.Readonly})
	}
	return out, nil
}

// mkdirNoSymlinks creates target's missing dirs below root (0755), failing
// when an existing component is a symlink or not a directory.
func mkdirNoSymlinks(root, target string) error {
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%s is not inside %s", target, root)
	}
	p := filepath.Clean(root)
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := os.Mkdir(p, 0o755); err != nil {
				return fmt.Errorf("creating mount point %s: %w", p, err)
			}
		case err != nil:
			return err
		case st.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("mount point %s is a symlink", p)
		case !st.IsDir():
			return fmt.Errorf("mount point %s is not a directory", p)
		}
	}
	return nil
}

// bindVolumes runs in the init, in its private mount namespace, after the
// writable dirs are bound: it binds each volume at its target and makes the
// read-only ones read-only (the targets are inside the task dir, so the
// read-only pass of setupMounts leaves them alone).
func bindVolumes(mounts []bindMount) error {
	for _, m := range mounts {
		if err := syscall.Mount(m.Source, m.Target, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("binding host volume %s at %s: %w", m.Source, m.Target, err)
		}
		if !m.ReadOnly {
			continue
		}
		flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY)
		if err := syscall.Mount("", m.Target, "", flags, ""); err != nil {
			return fmt.Errorf("making host volume %s read-only: %w", m.Target, err)
		}
	}
	return nil
}

// volumeEnv is raw_exec's view of the mounts: NOMAD_HOST_VOLUME_<name> =
// the host path, the name's characters outside [A-Za-z0-9_] as "_". It
// returns env itself when there are no mounts, else a copy.
func volumeEnv(env map[string]string, mounts []base.MountConfig) map[string]string {
	if len(mounts) == 0 {
		return env
	}
	out := make(map[string]string, len(env)+len(mounts))
	for k, v := range env {
		out[k] = v
	}
	for _, m := range mounts {
		key := "NOMAD_HOST_VOLUME_" + strings.Map(func(r rune) rune {
			if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, m.Volume)
		if _, set := out[key]; !set {
			out[key] = m.HostPath
		}
	}
	return out
}
