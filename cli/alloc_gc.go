package cli

import (
	"fmt"
	"net/http"
)

// allocGCCommand is `alloc gc ALLOC`: PUT /v1/client/allocation/:id/gc.
// The client holding the allocation destroys it now (alloc dir and logs);
// a running allocation is refused (400) and left alone.
func allocGCCommand(m *Meta, args []string) int {
	f := m.newFlags("alloc gc", "[options] ALLOC")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the allocation ID or prefix")
	}
	c := m.client(f)
	id, ok := resolveID(m, allocMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	if _, err := c.do(http.MethodPut, "/v1/client/allocation/"+esc(id)+"/gc", nil, nil, nil); err != nil {
		return m.errorf("garbage collecting allocation %s: %v", id, err)
	}
	fmt.Fprintf(m.Out, "Garbage collected allocation %s\n", id)
	return exitOK
}
