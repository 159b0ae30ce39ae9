package allocrunner

import "github.com/nomadish/nomadish/structs"

// ClientStatus derives an allocation's client status and description from
// its tasks' states, like Nomad: any failed task fails the allocation; else
// any running task makes it running; else any pending task keeps it
// pending; else all are dead and it is complete.
func ClientStatus(states map[string]*structs.TaskState) (status, desc string) {
	var pending, running, dead, failed bool
	for _, s := range states {
		switch s.State {
		case structs.TaskStateRunning:
			running = true
		case structs.TaskStatePending:
			pending = true
		case structs.TaskStateDead:
			if s.Failed {
				failed = true
			} else {
				dead = true
			}
		}
	}
	switch {
	case failed:
		return structs.AllocClientStatusFailed, "Failed tasks"
	case running:
		return structs.AllocClientStatusRunning, "Tasks are running"
	case pending:
		return structs.AllocClientStatusPending, "No tasks have started"
	case dead:
		return structs.AllocClientStatusComplete, "All tasks have completed"
	}
	return structs.AllocClientStatusPending, ""
}
