package docker

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nomadish/nomadish/drivers/internal/hostpath"
)

// Sentinel errors of the host-path and allowlist checks; the messages that
// wrap them name the task config option and the plugin option that allows it.
var (
	// ErrHostPath is a host path outside the allocation directory while the
	// plugin's volumes { enabled = true } is not set.
	ErrHostPath = errors.New("docker: host path outside the allocation directory")
	// ErrNotAllowed is a task config option the plugin config does not allow.
	ErrNotAllowed = errors.New("docker: not allowed by the docker plugin config")
)

// hostPaths resolves the host paths a task names (volumes, bind mounts).
// root is the allocation directory (<data_dir>/alloc/<id>), the only tree a
// task may mount while enabled is false; taskDir is where relative paths
// start.
type hostPaths struct {
	root, taskDir string
	enabled       bool
}

// newHostPaths returns the resolver of a task: root is the parent of the
// shared alloc dir (the allocation directory holding it and the task dirs).
func newHostPaths(allocDir, taskDir string, enabled bool) hostPaths {
	root := ""
	switch {
	case allocDir != "":
		root = filepath.Dir(filepath.Clean(allocDir))
	case taskDir != "":
		root = filepath.Dir(filepath.Clean(taskDir))
	}
	return hostPaths{root: root, taskDir: taskDir, enabled: enabled}
}

// resolve returns the host path to hand to the engine for p as the task
// wrote it (what names the option in errors). A relative p is joined to
// the task dir. With volumes enabled the cleaned path is returned as is.
// Otherwise the longest existing prefix of the path has its symlinks
// evaluated (a symlink the task made in its alloc dir pointing outside is
// followed, as the kernel would when mounting), a dangling symlink on the
// way is refused (the engine would create its target), and the result must
// lie in the allocation directory; it is returned resolved, so the engine
// does not follow those symlinks again. An absolute p is checked the same
// way (Nomad allows absolute paths inside the allocation directory). The
// allocation directory itself is refused: with it a task could swap the
// shared alloc dir (where the plugin writes logs) for a symlink.
func (h hostPaths) resolve(what, p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(h.taskDir, p)
	}
	p = filepath.Clean(p)
	if h.enabled {
		return p, nil
	}
	if h.root == "" || !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: %q: the task has no allocation directory: %w", what, p, ErrHostPath)
	}
	real, err := hostpath.EvalExisting(p)
	if err != nil {
		return "", fmt.Errorf("%s: %q: %w: %w", what, p, ErrHostPath, err)
	}
	root, err := filepath.EvalSymlinks(h.root)
	if err != nil {
		return "", fmt.Errorf("%s: allocation directory %q: %w", what, h.root, err)
	}
	if real == root {
		return "", fmt.Errorf("%s: %q is the allocation directory itself (it holds the other tasks' directories and the shared alloc dir); mount a directory inside it: %w",
			what, p, ErrHostPath)
	}
	if !hostpath.Within(real, root) {
		return "", fmt.Errorf("%s: %q resolves to %q, outside the allocation directory; host paths need volumes { enabled = true } in the docker plugin config: %w",
			what, p, real, ErrHostPath)
	}
	if strings.ContainsRune(real, ':') {
		return "", fmt.Errorf("%s: %q resolves to %q, which has a ':': %w", what, p, real, ErrHostPath)
	}
	return real, nil
}

// builtin resolves one of the task's own directories (alloc, local,
// secrets) that the driver always mounts: like resolve with volumes
// disabled, so a task that replaced one with a symlink (through another
// mount of the alloc dir) does not get the link's target mounted.
func (h hostPaths) builtin(what, p string) (string, error) {
	strict := h
	strict.enabled = false
	return strict.resolve(what, p)
}
