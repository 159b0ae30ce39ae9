package client

import (
	"github.com/nomadish/nomadish/client/fingerprint"
)

// addCNIVersions adds the plugins.cni.version.<plugin> attributes once the
// client runs: each CNI plugin is run once to learn them (tens of
// milliseconds for Debian's sixteen), which the agent's start need not
// wait for. The node is re-registered with them; placement does not read
// them (bridge mode is the NodeNetworks entry the start-up fingerprint
// made). Ends with the client.
func (c *Client) addCNIVersions() {
	attrs := fingerprint.CNIVersionAttributes(c.ctx, c.cfg.networkConfig())
	if len(attrs) == 0 || c.ctx.Err() != nil {
		return
	}
	c.nodeMu.Lock()
	for k, v := range attrs {
		c.node.Attributes[k] = v
	}
	c.nodeMu.Unlock()
	select {
	case c.nodeChanged <- struct{}{}:
	default:
	}
}
