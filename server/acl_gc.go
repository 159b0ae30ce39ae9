package server

import (
	"context"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// Expired ACL tokens are deleted by the leader, as Nomad does: every
// aclTokenGCInterval, the tokens expired for at least aclTokenGCThreshold.
// Until then an expired token is still refused (ResolveToken checks the
// expiry), and still listed, so an operator sees why a request failed.
const (
	aclTokenGCInterval  = 5 * time.Minute
	aclTokenGCThreshold = time.Hour
)

// expiredTokenAccessors is the accessors of tokens that expired at least
// threshold before now.
func expiredTokenAccessors(tokens []*structs.ACLToken, now time.Time, threshold time.Duration) []string {
	var out []string
	for _, t := range tokens {
		if t.ExpirationTime != nil && !t.ExpirationTime.Add(threshold).After(now) {
			out = append(out, t.AccessorID)
		}
	}
	return out
}

// reapExpiredTokens is the leader duty that deletes expired tokens, on the
// server's clock, until ctx ends. It runs only with ACLs on.
func (s *Server) reapExpiredTokens(ctx context.Context) {
	for {
		fire := make(chan struct{}, 1)
		t := s.cfg.Clock.AfterFunc(aclTokenGCInterval, func() { fire <- struct{}{} })
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-fire:
		}
		s.gcExpiredTokens()
	}
}

// gcExpiredTokens deletes, through raft, the tokens expired past the
// threshold.
func (s *Server) gcExpiredTokens() {
	tokens, err := s.State().Snapshot().ACLTokens(nil)
	if err != nil {
		s.logger.Error("ACL token GC: listing tokens", "error", err)
		return
	}
	ids := expiredTokenAccessors(tokens, s.cfg.Clock.Now(), aclTokenGCThreshold)
	if len(ids) == 0 {
		return
	}
	if _, _, err := s.raftApply(structs.ACLTokenDeleteRequestType, &structs.ACLTokenDeleteRequest{AccessorIDs: ids}); err != nil {
		s.logger.Error("ACL token GC: deleting expired tokens", "count", len(ids), "error", err)
		return
	}
	s.logger.Info("ACL token GC: deleted expired tokens", "accessors", ids)
}
