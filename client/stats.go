package client

import "strconv"

// Stats are the client's entries of /v1/agent/self's "client" stats
// (Nomad's names): num_allocations counts the allocation runners it holds.
func (c *Client) Stats() map[string]string {
	c.allocMu.Lock()
	n := len(c.allocs)
	c.allocMu.Unlock()
	return map[string]string{"num_allocations": strconv.Itoa(n)}
}
