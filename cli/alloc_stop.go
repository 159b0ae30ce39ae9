package cli

import (
	"fmt"
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// allocStopCommand is `alloc stop [-detach] [-verbose] ALLOC`: PUT
// /v1/allocation/:id/stop. The servers stop the allocation and place a
// replacement; the command monitors the evaluation like `job run` (exit 2
// when the replacement could not be placed) unless -detach, which prints
// the evaluation ID and returns.
func allocStopCommand(m *Meta, args []string) int {
	f := m.newFlags("alloc stop", "[options] ALLOC")
	detach := f.Bool("detach", false, "return at once with the evaluation ID")
	verbose := f.Bool("verbose", false, "show full IDs")
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
	var resp structs.AllocStopResponse
	if _, err := c.do(http.MethodPut, "/v1/allocation/"+esc(id)+"/stop", nil, nil, &resp); err != nil {
		return m.errorf("stopping allocation: %v", err)
	}
	if *detach {
		fmt.Fprintln(m.Out, resp.EvalID)
		return exitOK
	}
	mon := &monitor{m: m, c: c, verbose: *verbose}
	return mon.run(resp.EvalID)
}
