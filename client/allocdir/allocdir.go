// Package allocdir lays out an allocation's directory on the client:
// <data_dir>/alloc/<alloc-id>/{alloc/{logs,data,tmp}, <task>/{local,secrets,tmp}}.
package allocdir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Shared sub-directories of every allocation (Nomad's names).
const (
	SharedAllocName = "alloc"
	LogDirName      = "logs"
	SharedDataDir   = "data"
	TmpDirName      = "tmp"
	TaskLocal       = "local"
	TaskSecrets     = "secrets"
)

// AllocDir is the directory tree of one allocation. Immutable after New.
type AllocDir struct {
	// Dir is <data_dir>/alloc/<alloc-id>.
	Dir string
	// SharedDir is Dir/alloc, shared by the group's tasks (NOMAD_ALLOC_DIR).
	SharedDir string
	// LogDir is SharedDir/logs, where drivers write <task>.stdout|stderr.<n>.
	LogDir string
}

// TaskDir is the directory tree of one task inside an allocation.
type TaskDir struct {
	Dir        string // <alloc dir>/<task>
	LocalDir   string // NOMAD_TASK_DIR
	SecretsDir string // NOMAD_SECRETS_DIR
	TmpDir     string
}

// New returns the layout of allocation allocID under root (<data_dir>/alloc);
// it creates nothing.
func New(root, allocID string) *AllocDir {
	dir := filepath.Join(root, allocID)
	shared := filepath.Join(dir, SharedAllocName)
	return &AllocDir{Dir: dir, SharedDir: shared, LogDir: filepath.Join(shared, LogDirName)}
}

// TaskDir returns the layout of the named task.
func (d *AllocDir) TaskDir(task string) TaskDir {
	td := filepath.Join(d.Dir, task)
	return TaskDir{
		Dir:        td,
		LocalDir:   filepath.Join(td, TaskLocal),
		SecretsDir: filepath.Join(td, TaskSecrets),
		TmpDir:     filepath.Join(td, TmpDirName),
	}
}

// LogPath returns the base path of a task's log of type "stdout" or "stderr"
// (drivers append ".<n>" when rotating).
func (d *AllocDir) LogPath(task, logType string) string {
	return filepath.Join(d.LogDir, task+"."+logType)
}

// Build creates the shared directories and those of each task. It is
// idempotent, so a restored allocation may call it again.
func (d *AllocDir) Build(tasks []string) error {
	dirs := []string{
		d.LogDir,
		filepath.Join(d.SharedDir, SharedDataDir),
		filepath.Join(d.SharedDir, TmpDirName),
	}
	for _, t := range tasks {
		td := d.TaskDir(t)
		dirs = append(dirs, td.LocalDir, td.SecretsDir, td.TmpDir)
	}
	for _, p := range dirs {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("creating alloc dir %q: %w", p, err)
		}
	}
	return nil
}

// Destroy removes the whole allocation directory.
func (d *AllocDir) Destroy() error {
	if err := os.RemoveAll(d.Dir); err != nil {
		return fmt.Errorf("removing alloc dir %q: %w", d.Dir, err)
	}
	return nil
}
