package cluster

// SerfStats returns serf's own stats (members, failed, left, health_score,
// event_queue, encrypted, ...) for /v1/agent/self's "serf" section; empty
// without gossip.
func (c *Cluster) SerfStats() map[string]string {
	if c.serf == nil {
		return map[string]string{}
	}
	return c.serf.Stats()
}
