package handlefile

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nomadish/nomadish/drivers/base"
)

// Discover is the common part of a driver's DiscoverTask for drivers that
// write a handle file at start (exec, raw_exec, qemu): it reads the record
// of cfg's task, decodes its driver state into state (a pointer to the
// driver's own state struct), and asks notOurs why the recorded process is
// not, or no longer, that task ("" when it is). It returns the handle to
// pass to the driver's RecoverTask. Every refusal wraps
// base.ErrTaskNotFound and names the driver, the task and the reason.
func Discover(driver string, cfg *base.TaskConfig, state any, notOurs func(taskID string) string) (*base.TaskHandle, error) {
	notFound := func(why string) error {
		if why == "" {
			return fmt.Errorf("%s: task %s/%s: %w", driver, cfg.AllocID, cfg.Name, base.ErrTaskNotFound)
		}
		return fmt.Errorf("%s: task %s/%s: %w (%s)", driver, cfg.AllocID, cfg.Name, base.ErrTaskNotFound, why)
	}
	rec, err := Read(driver, cfg)
	if errors.Is(err, ErrNone) {
		return nil, notFound("")
	}
	if err != nil {
		return nil, notFound(err.Error())
	}
	if err := json.Unmarshal(rec.DriverState, state); err != nil {
		return nil, notFound(fmt.Sprintf("bad driver state in handle file: %v", err))
	}
	if why := OfTask(rec.TaskID, cfg); why != "" {
		return nil, notFound(why)
	}
	if why := notOurs(rec.TaskID); why != "" {
		return nil, notFound(why)
	}
	hcfg := *cfg
	hcfg.ID = rec.TaskID
	return &base.TaskHandle{Version: base.TaskHandleVersion, Config: &hcfg, State: base.TaskStateRunning,
		DriverState: rec.DriverState}, nil
}
