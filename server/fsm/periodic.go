package fsm

import "github.com/nomadish/nomadish/structs"

// applyPeriodicLaunch records a periodic launch and registers its child
// (a no-op for a child that exists: a launch replayed after a leader change).
func (f *FSM) applyPeriodicLaunch(buf []byte, index uint64) any {
	var req structs.PeriodicLaunchRequest
	decode(buf, &req, index)
	if err := f.State().UpsertPeriodicLaunch(index, req.Launch, req.Child, req.Eval); err != nil {
		f.logger.Error("applying periodic launch", "error", err)
		return err
	}
	return nil
}
