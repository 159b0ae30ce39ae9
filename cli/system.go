package cli

// Nomad's `system gc` and `system reconcile summaries` over PUT
// /v1/system/gc and /v1/system/reconcile/summaries
// (website/garbage-collection.md); the command table in cli.go names them.

import (
	"fmt"
	"net/http"
)

// systemPut is PUT path with no body and no answer.
func (c *apiClient) systemPut(path string) error {
	_, err := c.do(http.MethodPut, path, nil, nil, nil)
	return err
}

// systemGCCommand is `system gc`: a forced garbage collection on the
// leader (a management token with ACLs on). Like Nomad it prints nothing
// on success.
func systemGCCommand(m *Meta, args []string) int {
	f := m.newFlags("system gc", "[options]")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	if err := m.client(f).systemPut("/v1/system/gc"); err != nil {
		return m.errorf("running the garbage collector: %v", err)
	}
	return exitOK
}

// systemReconcileSummariesCommand is `system reconcile summaries`.
func systemReconcileSummariesCommand(m *Meta, args []string) int {
	f := m.newFlags("system reconcile summaries", "[options]")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	if err := m.client(f).systemPut("/v1/system/reconcile/summaries"); err != nil {
		return m.errorf("reconciling job summaries: %v", err)
	}
	fmt.Fprintln(m.Out, "Successfully reconciled job summaries")
	return exitOK
}
