package cluster

import "time"

// cleanupDeadServers removes from raft the servers serf has reported failed
// for longer than DeadServerGrace (autopilot's CleanupDeadServers). It only
// removes while the failed ones are a minority of the voters (voters counts
// them), so a partition that hides most servers never shrinks the quorum
// under the survivors. Membership loop only, on the leader; failed holds
// this round's failed servers that are still raft peers.
func (c *Cluster) cleanupDeadServers(failed []ServerMember, voters int, now time.Time) {
	seen := map[string]bool{}
	for _, m := range failed {
		seen[m.ID] = true
		if _, ok := c.failedSince[m.ID]; !ok {
			c.failedSince[m.ID] = now
		}
	}
	for id := range c.failedSince {
		if !seen[id] {
			delete(c.failedSince, id)
		}
	}
	if c.gossip.DisableDeadServerCleanup || 2*len(failed) >= voters {
		return
	}
	for _, m := range deadPast(failed, c.failedSince, c.gossip.DeadServerGrace, now) {
		c.removePeer(m, "failed for longer than the dead server grace")
		delete(c.failedSince, m.ID)
	}
}

// deadPast returns the members of failed first seen failed at least grace
// before now.
func deadPast(failed []ServerMember, since map[string]time.Time, grace time.Duration, now time.Time) []ServerMember {
	var out []ServerMember
	for _, m := range failed {
		if t, ok := since[m.ID]; ok && now.Sub(t) >= grace {
			out = append(out, m)
		}
	}
	return out
}
