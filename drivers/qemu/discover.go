package qemu

import (
	"fmt"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/execdriver"
	"github.com/nomadish/nomadish/drivers/internal/handlefile"
)

var _ base.TaskDiscoverer = (*Driver)(nil)

// DiscoverTask finds the VM of cfg's alloc and task name started by an
// earlier client whose handle is lost, from the handle file written beside
// the alloc at start (handlefile): the qemu process must still be the one
// recorded (pid and start time) and carry the task's NOMAD_ALLOC_ID and
// NOMAD_TASK_NAME. It is then re-attached (RecoverTask: its log FIFOs and
// QMP socket, which live in the alloc dir); anything else is
// ErrTaskNotFound.
func (d *Driver) DiscoverTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	var st driverState
	h, err := handlefile.Discover(Name, cfg, &st, func(string) string {
		if st.Pid <= 0 {
			return "no pid in the handle file"
		}
		if !execdriver.Alive(st.Pid, st.StartTicks) {
			return fmt.Sprintf("process %d exited", st.Pid)
		}
		return handlefile.EnvMismatch(st.Pid, cfg)
	})
	if err != nil {
		return nil, err
	}
	if err := d.RecoverTask(h); err != nil {
		return nil, err
	}
	d.logger.Info("re-discovered VM from its handle file", "task", h.Config.ID, "pid", st.Pid)
	return h, nil
}
