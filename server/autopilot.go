package server

import "time"

// cleanupDeadServers removes from raft the servers serf has reported failed
// for longer than DeadServerGrace (autopilot's CleanupDeadServers). It only
// removes while the failed ones are a minority of the voters (voters counts
// them), so a partition that hides most servers never shrinks the quorum
// under the survivors. Membership loop only, on the leader; failed holds
// this round's failed servers that are still raft peers.
func (s *Server) cleanupDeadServers(failed []serverMember, voters int, now time.Time) {
	seen := map[string]bool{}
	for _, m := range failed {
		seen[m.ID] = true
		if _, ok := s.cluster.failedSince[m.ID]; !ok {
			s.cluster.failedSince[m.ID] = now
		}
	}
	for id := range s.cluster.failedSince {
		if !seen[id] {
			delete(s.cluster.failedSince, id)
		}
	}
	if s.cluster.cfg.DisableDeadServerCleanup || 2*len(failed) >= voters {
		return
	}
	for _, m := range deadPast(failed, s.cluster.failedSince, s.cluster.cfg.DeadServerGrace, now) {
		s.removePeer(m, "failed for longer than the dead server grace")
		delete(s.cluster.failedSince, m.ID)
	}
}

// deadPast returns the members of failed first seen failed at least grace
// before now.
func deadPast(failed []serverMember, since map[string]time.Time, grace time.Duration, now time.Time) []serverMember {
	var out []serverMember
	for _, m := range failed {
		if t, ok := since[m.ID]; ok && now.Sub(t) >= grace {
			out = append(out, m)
		}
	}
	return out
}
