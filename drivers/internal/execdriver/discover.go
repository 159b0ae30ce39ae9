package execdriver

import (
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
	var st driverState
	h, err := handlefile.Discover(d.opts.Name, cfg, &st, func(taskID string) string {
		return d.notOurs(cfg, taskID, st)
	})
	if err != nil {
		return nil, err
	}
	if err := d.RecoverTask(h); err != nil {
		return nil, err
	}
	d.logger.Info("re-discovered task from its handle file", "task", h.Config.ID, "pid", st.Pid)
	return h, nil
}

// notOurs says why the recorded process is not (or no longer) the task of
// cfg with ID taskID; "" when it is.
func (d *Driver) notOurs(cfg *base.TaskConfig, taskID string, st driverState) string {
	if st.Pid <= 0 {
		return "no pid in the handle file"
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
