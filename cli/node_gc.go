package cli

import (
	"fmt"
	"net/http"
	"net/url"
)

// nodeGCCommand is `node gc [NODE]`: PUT /v1/client/gc. The node's client
// destroys every terminal allocation now (their alloc dirs and logs go);
// running ones stay. Without NODE it is the client of the agent the CLI
// talks to; a NODE (ID or prefix) is reached through the servers.
func nodeGCCommand(m *Meta, args []string) int {
	f := m.newFlags("node gc", "[options] [NODE]")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return m.wrongArgs(f, "at most one argument: the node ID or prefix")
	}
	c := m.client(f)
	q := url.Values{}
	what := "the agent's client"
	if len(pos) == 1 {
		id, ok := resolveID(m, nodeMatcher(c), pos[0])
		if !ok {
			return exitError
		}
		q.Set("node_id", id)
		what = "node " + id
	}
	if _, err := c.do(http.MethodPut, "/v1/client/gc", q, nil, nil); err != nil {
		return m.errorf("garbage collecting %s: %v", what, err)
	}
	fmt.Fprintf(m.Out, "Garbage collected the terminal allocations of %s\n", what)
	return exitOK
}
