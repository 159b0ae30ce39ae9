package cli

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// allocRestartCommand is `alloc restart [-task NAME] [-all-tasks] ALLOC
// [TASK]`: PUT /v1/client/allocation/:id/restart. The task (or, without
// one, every running task) is restarted in place without counting against
// its restart policy. Returns once the old instances stopped; prints
// nothing on success, as Nomad.
func allocRestartCommand(m *Meta, args []string) int {
	f := m.newFlags("alloc restart", "[options] ALLOC [TASK]")
	task := f.String("task", "", "the task to restart (default: every running task)")
	all := f.Bool("all-tasks", false, "restart every running task of the allocation")
	c, id, name, code, ok := m.allocTaskArgs(f, args, task)
	if !ok {
		return code
	}
	if *all && name != "" {
		return m.errorf("restarting allocation: name a task or use -all-tasks, not both")
	}
	body := structs.AllocRestartRequest{TaskName: name, AllTasks: *all}
	if _, err := c.do(http.MethodPut, "/v1/client/allocation/"+esc(id)+"/restart", nil, body, nil); err != nil {
		return m.errorf("restarting allocation: %v", err)
	}
	return exitOK
}
