package reconcile

import (
	"time"

	"github.com/nomadish/nomadish/structs"
)

// Descriptions of the disconnect rules.
const (
	allocReconnected = "alloc not needed as its original reconnected (or the replacement won)"
)

// disconnectedUntil returns when a's allocation on a disconnected node
// becomes lost: the node's disconnection time plus the group's lost_after.
// ok is false when the rule does not apply: the node is not disconnected
// (live, down or gone) or the group has no disconnect window.
func disconnectedUntil(a *structs.Allocation, tg *structs.TaskGroup, tainted map[string]*structs.Node) (time.Time, bool) {
	n := tainted[a.NodeID]
	if n == nil || n.Status != structs.NodeStatusDisconnected {
		return time.Time{}, false
	}
	window := tg.LostAfter()
	if window <= 0 {
		return time.Time{}, false
	}
	return time.Unix(0, n.StatusUpdatedAt).Add(window), true
}

// disconnected handles a live alloc on a disconnected node within its
// group's window: it becomes unknown (Result.Disconnecting, once, with
// Result.DisconnectExpiry for the follow-up eval that finds it lost) and, when
// the group replaces disconnected allocs, a replacement takes its index;
// otherwise it keeps counting toward the group's count. It reports false
// when the window has passed or does not apply (the alloc is then lost).
func (g *groupReconciler) disconnected(a *structs.Allocation, u *structs.DesiredUpdates) bool {
	until, ok := disconnectedUntil(a, g.tg, g.tainted)
	if !ok || !g.now.Before(until) {
		return false
	}
	if a.ClientStatus != structs.AllocClientStatusUnknown {
		g.res.Disconnecting = append(g.res.Disconnecting, a)
		if e := g.res.DisconnectExpiry; e.IsZero() || until.Before(e) {
			g.res.DisconnectExpiry = until
		}
	}
	u.Ignore++
	if g.tg.ReplaceOnDisconnect() {
		g.res.Ignore = append(g.res.Ignore, a)
		g.markReplaced(a)
	} else {
		g.keep = append(g.keep, a)
	}
	return true
}

// stopReconnected resolves each pair of live allocs where one replaced the
// other while the other's node was disconnected (the replacement's
// PreviousAllocation is the original) and both now count: the group's
// reconcile strategy picks the one that stays; the other is stopped.
// Called before stopExcess, which would otherwise keep the older one.
func (g *groupReconciler) stopReconnected(u *structs.DesiredUpdates) {
	byID := make(map[string]*structs.Allocation, len(g.keep))
	for _, a := range g.keep {
		if isLive(a) {
			byID[a.ID] = a
		}
	}
	losers := map[string]bool{}
	for _, r := range g.keep {
		o := byID[r.PreviousAllocation]
		if o == nil || !isLive(r) || losers[o.ID] || losers[r.ID] || o.Index() != r.Index() {
			continue
		}
		loser := r
		if keepReplacement(g.tg.ReconcileStrategy(), o, r) {
			loser = o
		}
		losers[loser.ID] = true
		g.stop(loser, allocReconnected, u)
	}
	if len(losers) == 0 {
		return
	}
	kept := g.keep[:0]
	for _, a := range g.keep {
		if !losers[a.ID] {
			kept = append(kept, a)
		}
	}
	g.keep = kept
}

// keepReplacement is the reconcile strategy's choice between an original
// alloc o and its replacement r: true keeps r. best_score keeps the alloc
// placed with the higher normalized score (the original on a tie or when a
// score is unknown); longest_running keeps the one whose tasks started
// first (the original when unknown).
func keepReplacement(strategy string, o, r *structs.Allocation) bool {
	switch strategy {
	case structs.ReconcileKeepReplacement:
		return true
	case structs.ReconcileKeepOriginal:
		return false
	case structs.ReconcileLongestRunning:
		os, ook := startedAt(o)
		rs, rok := startedAt(r)
		return ook && rok && rs.Before(os)
	default: // best_score
		os, ook := placementScore(o)
		rs, rok := placementScore(r)
		return ook && rok && rs > os
	}
}

// placementScore is the normalized score a's node had when a was placed.
func placementScore(a *structs.Allocation) (float64, bool) {
	if a.Metrics == nil {
		return 0, false
	}
	for _, m := range a.Metrics.ScoreMetaData {
		if m != nil && m.NodeID == a.NodeID {
			return m.NormScore, true
		}
	}
	return 0, false
}

// startedAt is the earliest start of a's tasks.
func startedAt(a *structs.Allocation) (time.Time, bool) {
	var first time.Time
	for _, s := range a.TaskStates {
		if s == nil || s.StartedAt.IsZero() {
			continue
		}
		if first.IsZero() || s.StartedAt.Before(first) {
			first = s.StartedAt
		}
	}
	return first, !first.IsZero()
}
