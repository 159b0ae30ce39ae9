package fsm

import "github.com/nomadish/nomadish/structs"

// applySchedulerConfig writes the scheduler configuration. The response is
// whether it was written (false: a CAS write lost) or an error.
func (f *FSM) applySchedulerConfig(buf []byte, index uint64) any {
	var req structs.SchedulerSetConfigRequest
	decode(buf, &req, index)
	updated, err := f.State().SchedulerSetConfig(index, &req.Config, req.CAS)
	if err != nil {
		f.logger.Error("applying scheduler configuration", "error", err)
		return err
	}
	return updated
}

// applyAutopilotConfig writes the autopilot configuration. The response is
// whether it was written (false: a CAS write lost) or an error.
func (f *FSM) applyAutopilotConfig(buf []byte, index uint64) any {
	var req structs.AutopilotSetConfigRequest
	decode(buf, &req, index)
	updated, err := f.State().AutopilotSetConfig(index, &req.Config, req.CAS)
	if err != nil {
		f.logger.Error("applying autopilot configuration", "error", err)
		return err
	}
	return updated
}
