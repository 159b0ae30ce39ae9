package execdriver

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/handlefile"
)

var _ base.TaskDiscoverer = (*Driver)(nil)

// DiscoverTask finds a task of cfg's alloc and name started by an earlier
// client whose handle is lost, from the handle file the driver wrote beside
// the alloc at start (handlefile). The process must still be the one
// recorded (pid and start time) and provably the task's: for exec, a
// member of the cgroup named for the recorded task ID; for raw_exec, a
// process whose environment names the alloc and task. Such a task is
// re-attached (RecoverTask); anything else is ErrTaskNotFound.
func (d *Driver) DiscoverTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	rec, err := handlefile.Read(d.opts.Name, cfg)
	if errors.Is(err, handlefile.ErrNone) {
		return nil, fmt.Errorf("%s: task %s/%s: %w", d.opts.Name, cfg.AllocID, cfg.Name, base.ErrTaskNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: task %s/%s: %w (%v)", d.opts.Name, cfg.AllocID, cfg.Name, base.ErrTaskNotFound, err)
	}
	var st driverState
	if err := json.Unmarshal(rec.DriverState, &st); err != nil || st.Pid <= 0 {
		return nil, fmt.Errorf("%s: task %s/%s: %w (bad driver state in handle file: %v)",
			d.opts.Name, cfg.AllocID, cfg.Name, base.ErrTaskNotFound, err)
	}
	if why := d.notOurs(cfg, rec.TaskID, st); why != "" {
		return nil, fmt.Errorf("%s: task %s/%s: %w (%s)", d.opts.Name, cfg.AllocID, cfg.Name, base.ErrTaskNotFound, why)
	}
	hcfg := *cfg
	hcfg.ID = rec.TaskID
	h := &base.TaskHandle{Version: base.TaskHandleVersion, Config: &hcfg, State: base.TaskStateRunning,
		DriverState: rec.DriverState}
	if err := d.RecoverTask(h); err != nil {
		return nil, err
	}
	d.logger.Info("re-discovered task from its handle file", "task", rec.TaskID, "pid", st.Pid)
	return h, nil
}

// notOurs says why the recorded process is not (or no longer) the task of
// cfg with ID taskID; "" when it is.
func (d *Driver) notOurs(cfg *base.TaskConfig, taskID string, st driverState) string {
	if why := handlefile.OfTask(taskID, cfg); why != "" {
		return why
	}
	if !alive(st.Pid, st.StartTicks) {
		return fmt.Sprintf("process %d exited", st.Pid)
	}
	if len(st.Cgroups) > 0 {
		if filepath.Base(st.Cgroups[0]) != cgroupName(taskID) || !slices.Contains(cgroupPids(st.Cgroups[0]), st.Pid) {
			return fmt.Sprintf("process %d is not in the task's cgroup", st.Pid)
		}
		return ""
	}
	if d.opts.Isolate {
		return "an isolated task's handle names no cgroup"
	}
	if why := handlefile.EnvMismatch(st.Pid, cfg); why != "" {
		return why
	}
	return ""
}
