package qemu

import (
	"encoding/json"
	"errors"
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
	notFound := func(why string) error {
		return fmt.Errorf("qemu: task %s/%s: %w (%s)", cfg.AllocID, cfg.Name, base.ErrTaskNotFound, why)
	}
	rec, err := handlefile.Read(Name, cfg)
	if errors.Is(err, handlefile.ErrNone) {
		return nil, fmt.Errorf("qemu: task %s/%s: %w", cfg.AllocID, cfg.Name, base.ErrTaskNotFound)
	}
	if err != nil {
		return nil, notFound(err.Error())
	}
	var st driverState
	if err := json.Unmarshal(rec.DriverState, &st); err != nil || st.Pid <= 0 {
		return nil, notFound(fmt.Sprintf("bad driver state in handle file: %v", err))
	}
	if why := handlefile.OfTask(rec.TaskID, cfg); why != "" {
		return nil, notFound(why)
	}
	if !execdriver.Alive(st.Pid, st.StartTicks) {
		return nil, notFound(fmt.Sprintf("process %d exited", st.Pid))
	}
	if why := handlefile.EnvMismatch(st.Pid, cfg); why != "" {
		return nil, notFound(why)
	}
	hcfg := *cfg
	hcfg.ID = rec.TaskID
	h := &base.TaskHandle{Version: base.TaskHandleVersion, Config: &hcfg, State: base.TaskStateRunning,
		DriverState: rec.DriverState}
	if err := d.RecoverTask(h); err != nil {
		return nil, err
	}
	d.logger.Info("re-discovered VM from its handle file", "task", rec.TaskID, "pid", st.Pid)
	return h, nil
}
