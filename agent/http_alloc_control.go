package agent

import (
	"context"
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// AllocController is the optional part of the agent's own client (the
// LogSource, client.Client) serving the client-side controls of a local
// allocation. Errors are *structs.CodedError: 404 unknown alloc or task,
// 400 bad signal or task not running.
type AllocController interface {
	// SignalAlloc signals task, or every running task when task is empty.
	SignalAlloc(allocID, task, signal string) error
	// RestartAlloc restarts task in place, or every running task when task
	// is empty; it returns once the old instances stopped.
	RestartAlloc(ctx context.Context, allocID, task string) error
	// AllocStats returns the latest usage of the allocation's tasks.
	AllocStats(allocID string) (*structs.AllocResourceUsage, error)
}

// allocSignal serves PUT/POST /v1/client/allocation/:id/signal with body
// {"Task": "name", "Signal": "SIGUSR1"} (no Task: every running task).
// 400: no or unknown signal, task not running; 404: unknown alloc or task;
// 501: the alloc runs on another node.
func (s *httpServer) allocSignal(w http.ResponseWriter, r *http.Request) (any, error) {
	var req structs.AllocSignalRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if req.Signal == "" {
		return nil, badRequest("missing signal: the body must name one, as {\"Signal\": \"SIGUSR1\"}")
	}
	ctl, err := s.localAlloc(r, r.PathValue("id"), req.Task)
	if err != nil {
		return nil, err
	}
	if err := ctl.SignalAlloc(r.PathValue("id"), req.Task, req.Signal); err != nil {
		return nil, err
	}
	return structs.GenericResponse{}, nil
}

// allocRestart serves PUT/POST /v1/client/allocation/:id/restart with body
// {"TaskName": "name", "AllTasks": bool}: TaskName restarts that task,
// otherwise every running task is restarted (AllTasks, as Nomad, also
// means every task; naming a task with AllTasks is a 400). An empty body
// restarts every running task. It answers once the old instances stopped.
// 400: task not running; 404: unknown alloc or task; 501: another node.
func (s *httpServer) allocRestart(w http.ResponseWriter, r *http.Request) (any, error) {
	var req structs.AllocRestartRequest
	if r.ContentLength != 0 {
		if err := decodeBody(r, &req); err != nil {
			return nil, err
		}
	}
	if req.AllTasks && req.TaskName != "" {
		return nil, badRequest("restart either one task (TaskName) or all tasks (AllTasks), not both")
	}
	ctl, err := s.localAlloc(r, r.PathValue("id"), req.TaskName)
	if err != nil {
		return nil, err
	}
	if err := ctl.RestartAlloc(r.Context(), r.PathValue("id"), req.TaskName); err != nil {
		return nil, err
	}
	return structs.GenericResponse{}, nil
}

// allocStats serves GET /v1/client/allocation/:id/stats: the latest usage
// of each running task and their sum (Nomad's AllocResourceUsage). 404:
// unknown alloc; 501: another node.
func (s *httpServer) allocStats(w http.ResponseWriter, r *http.Request) (any, error) {
	ctl, err := s.localAlloc(r, r.PathValue("id"), "")
	if err != nil {
		return nil, err
	}
	return ctl.AllocStats(r.PathValue("id"))
}

// localAlloc checks, through the servers, that allocation id exists (404),
// has task when task is set (404), and runs on this agent's client (501
// otherwise: requests are not forwarded to other clients yet), and
// returns the client's controls.
func (s *httpServer) localAlloc(r *http.Request, id, task string) (AllocController, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	q.MinQueryIndex, q.AllowStale = 0, true
	alloc, _, err := s.getAlloc(id, q)
	if err != nil {
		return nil, err
	}
	if alloc == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "unknown allocation %q", id)
	}
	if task != "" && alloc.Job != nil {
		if tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup); tg == nil || tg.LookupTask(task) == nil {
			return nil, structs.NewCodedError(structs.ErrCodeNotFound, "unknown task %q in allocation %s", task, alloc.ID)
		}
	}
	ctl, ok := s.Logs.(AllocController)
	if s.Logs == nil || !ok || alloc.NodeID != s.Logs.NodeID() {
		return nil, structs.NewCodedError(http.StatusNotImplemented, "alloc is not on this agent's client (node %s)", alloc.NodeID)
	}
	return ctl, nil
}
