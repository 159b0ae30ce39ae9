package cli

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// allocSignalCommand is `alloc signal [-s SIGNAL] [-task NAME] ALLOC [TASK]`:
// PUT /v1/client/allocation/:id/signal. Without a task every running task
// of the allocation gets the signal; -s defaults to SIGKILL, as Nomad's.
// Prints nothing on success.
func allocSignalCommand(m *Meta, args []string) int {
	f := m.newFlags("alloc signal", "[options] ALLOC [TASK]")
	sig := f.String("s", "SIGKILL", "the signal to send")
	task := f.String("task", "", "the task to signal (default: every running task)")
	c, id, name, code, ok := m.allocTaskArgs(f, args, task)
	if !ok {
		return code
	}
	body := structs.AllocSignalRequest{Task: name, Signal: *sig}
	if _, err := c.do(http.MethodPut, "/v1/client/allocation/"+esc(id)+"/signal", nil, body, nil); err != nil {
		return m.errorf("signalling allocation: %v", err)
	}
	return exitOK
}

// allocTaskArgs parses the `alloc signal|restart` arguments: the
// allocation (ID or unique prefix) and an optional task, given as a second
// argument or with -task (not both). It returns the client, the full
// alloc ID and the task name ("" for all tasks); on a usage or lookup error
// it has printed why and returns the exit code with ok=false.
func (m *Meta) allocTaskArgs(f *flags, args []string, task *string) (c *apiClient, id, name string, code int, ok bool) {
	pos, code, ok := m.parse(f, args)
	if !ok {
		return nil, "", "", code, false
	}
	if len(pos) < 1 || len(pos) > 2 || (len(pos) == 2 && *task != "") {
		return nil, "", "", m.wrongArgs(f, "the allocation ID and optionally the task name (or -task)"), false
	}
	name = *task
	if len(pos) == 2 {
		name = pos[1]
	}
	c = m.client(f)
	id, ok = resolveID(m, allocMatcher(c), pos[0])
	if !ok {
		return nil, "", "", exitError, false
	}
	return c, id, name, exitOK, true
}
