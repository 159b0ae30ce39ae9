package cluster

import (
	"time"

	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/structs"
)

// autopilot returns the stored autopilot configuration (Config.Autopilot),
// Nomad's defaults without one.
func (c *Cluster) autopilot() *structs.AutopilotConfig {
	if c.cfg.Autopilot != nil {
		if ap := c.cfg.Autopilot(); ap != nil {
			return ap
		}
	}
	return structs.DefaultAutopilotConfig()
}

// addOrPromote keeps an alive serf server m in raft on the leader: one
// missing from raft joins as a non-voter; one at a new address is re-added
// there with its suffrage; a non-voter becomes a voter once it has been
// stable (healthy, Config.StableSince) for the autopilot's
// ServerStabilizationTime. srv is m's raft entry when inRaft. Membership
// loop only.
func (c *Cluster) addOrPromote(m ServerMember, srv raft.Server, inRaft bool, ap *structs.AutopilotConfig, now time.Time) {
	id, addr := raft.ServerID(m.ID), raft.ServerAddress(m.RPCAddr)
	switch {
	case !inRaft || (srv.Suffrage != raft.Voter && string(srv.Address) != m.RPCAddr):
		c.logger.Info("adding server to raft as a non-voter", "server", m.Name, "addr", m.RPCAddr)
		if err := c.raft.AddNonvoter(id, addr, 0, 0).Error(); err != nil {
			c.logger.Warn("adding raft non-voter failed", "server", m.Name, "error", err)
		}
	case srv.Suffrage == raft.Voter && string(srv.Address) != m.RPCAddr:
		c.logger.Info("updating server's raft address", "server", m.Name, "addr", m.RPCAddr)
		if err := c.raft.AddVoter(id, addr, 0, 0).Error(); err != nil {
			c.logger.Warn("updating raft voter failed", "server", m.Name, "error", err)
		}
	case srv.Suffrage != raft.Voter && c.stableFor(m.ID, now) >= ap.ServerStabilizationTime:
		c.logger.Info("promoting stable server to raft voter", "server", m.Name, "addr", m.RPCAddr)
		if err := c.raft.AddVoter(id, addr, 0, 0).Error(); err != nil {
			c.logger.Warn("promoting raft voter failed", "server", m.Name, "error", err)
		}
	}
}

// stableFor is how long the server id has been stable at now: healthy by
// Config.StableSince, else (no health source) alive in serf; -1 when it is
// not healthy.
func (c *Cluster) stableFor(id string, now time.Time) time.Duration {
	if c.cfg.StableSince != nil {
		t, ok := c.cfg.StableSince(id)
		if !ok {
			return -1
		}
		return now.Sub(t)
	}
	return now.Sub(c.aliveSince[id])
}

// cleanupDeadServers removes from raft the servers serf has reported failed
// for longer than DeadServerGrace (autopilot's CleanupDeadServers, which
// the stored configuration may turn off, as may the server block's
// DisableDeadServerCleanup). It only removes while the failed ones are a
// minority of the voters (voters counts them), so a partition that hides
// most servers never shrinks the quorum under the survivors, and never
// below the configuration's MinQuorum voters. Membership loop only, on the
// leader; failed holds this round's failed servers that are still raft
// peers.
func (c *Cluster) cleanupDeadServers(failed []ServerMember, voters int, ap *structs.AutopilotConfig, now time.Time) {
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
	if c.gossip.DisableDeadServerCleanup || !ap.CleanupDeadServers || 2*len(failed) >= voters {
		return
	}
	for _, m := range deadPast(failed, c.failedSince, c.gossip.DeadServerGrace, now) {
		if voters-1 < int(ap.MinQuorum) {
			c.logger.Warn("not removing failed server: the voters would fall below min_quorum", "server", m.Name, "min_quorum", ap.MinQuorum)
			return
		}
		c.removePeer(m, "failed for longer than the dead server grace")
		delete(c.failedSince, m.ID)
		voters--
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
