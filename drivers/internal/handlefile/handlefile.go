// Package handlefile keeps, for process-running drivers (exec, raw_exec,
// qemu), a copy of each running task's identity beside its allocation, so
// the task can be found again when the client loses its state file: the
// task ID and the driver state (pid, process start time, FIFOs, cgroups) in
// <alloc dir>/.nomadish-<driver>-<task>.handle. The alloc dir's root is
// written only by the client (an exec task sees it read-only; a docker or
// qemu task does not see it at all), so the file is not the task's to forge.
package handlefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nomadish/nomadish/drivers/base"
)

// ErrNone is returned by Read when no handle file exists for the task.
var ErrNone = errors.New("handlefile: no handle file")

// maxSize bounds what Read accepts: a handle is a few hundred bytes.
const maxSize = 64 << 10

// Record is the content of a handle file.
type Record struct {
	TaskID      string          // the TaskConfig.ID the task was started with
	DriverState json.RawMessage // TaskHandle.DriverState (the driver's JSON)
}

// Path is the handle file of the task of cfg run by driver; "" when cfg has
// no task dir (a task run outside an alloc dir, in tests).
func Path(driver string, cfg *base.TaskConfig) string {
	if cfg == nil || cfg.TaskDir == "" || cfg.Name == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(filepath.Clean(cfg.TaskDir)), ".nomadish-"+driver+"-"+cfg.Name+".handle")
}

// Write stores the record of a started task (atomically: a temp file
// renamed over the old one).
func Write(driver string, cfg *base.TaskConfig, driverState []byte) error {
	p := Path(driver, cfg)
	if p == "" {
		return nil
	}
	b, err := json.Marshal(&Record{TaskID: cfg.ID, DriverState: driverState})
	if err != nil {
		return fmt.Errorf("encoding handle file: %w", err)
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("writing handle file: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing handle file: %w", err)
	}
	return nil
}

// Read returns the record of the task of cfg; ErrNone when there is none.
func Read(driver string, cfg *base.TaskConfig) (*Record, error) {
	p := Path(driver, cfg)
	if p == "" {
		return nil, ErrNone
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNone
	}
	if err != nil {
		return nil, fmt.Errorf("reading handle file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading handle file: %w", err)
	}
	if len(b) > maxSize {
		return nil, fmt.Errorf("handle file %s: larger than %d bytes", p, maxSize)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil || r.TaskID == "" || len(r.DriverState) == 0 {
		return nil, fmt.Errorf("handle file %s: malformed (%v)", p, err)
	}
	return &r, nil
}

// Remove deletes the handle file of the task of cfg (gone already is fine).
func Remove(driver string, cfg *base.TaskConfig) {
	if p := Path(driver, cfg); p != "" {
		_ = os.Remove(p)
	}
}

// EnvMismatch says why process pid's environment does not name the alloc
// and task of cfg (NOMAD_ALLOC_ID and NOMAD_TASK_NAME, which the client
// sets for every task and the driver passes to the process it starts);
// "" when it does.
func EnvMismatch(pid int, cfg *base.TaskConfig) string {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return fmt.Sprintf("reading the environment of process %d: %v", pid, err)
	}
	vars := bytes.Split(env, []byte{0})
	has := func(kv string) bool {
		return slices.ContainsFunc(vars, func(v []byte) bool { return string(v) == kv })
	}
	if !has("NOMAD_ALLOC_ID="+cfg.AllocID) || !has("NOMAD_TASK_NAME="+cfg.Name) {
		return fmt.Sprintf("process %d's environment does not name the alloc and task", pid)
	}
	return ""
}

// OfTask says why a recorded task ID is not one of the task of cfg
// ("<alloc id>/<task name>/<suffix>", as the client builds them); "" when
// it is.
func OfTask(taskID string, cfg *base.TaskConfig) string {
	if !strings.HasPrefix(taskID, cfg.AllocID+"/"+cfg.Name+"/") {
		return fmt.Sprintf("recorded task ID %q is not of this task", taskID)
	}
	return ""
}
