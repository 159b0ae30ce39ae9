package structs

import (
	"fmt"
	"time"
)

// Reconcile strategies of the disconnect block: which allocation stays when
// a disconnected node comes back while a replacement runs elsewhere.
const (
	ReconcileBestScore       = "best_score"
	ReconcileKeepOriginal    = "keep_original"
	ReconcileKeepReplacement = "keep_replacement"
	ReconcileLongestRunning  = "longest_running"
)

// DisconnectStrategy is a group's disconnect block (Nomad 1.8+): while a
// node is disconnected for less than LostAfter, its allocations of the
// group are "unknown" rather than lost; Replace says whether replacements
// are placed meanwhile; Reconcile picks the survivor when the node returns.
type DisconnectStrategy struct {
	// LostAfter is how long a disconnected node's allocations stay
	// unknown before they are lost (0: lost at once, as without the block).
	LostAfter time.Duration
	// Replace places replacements for unknown allocations (nil: true).
	Replace *bool
	// Reconcile is one of the Reconcile* strategies ("": best_score).
	Reconcile string
}

// Copy returns a deep copy (nil for nil).
func (d *DisconnectStrategy) Copy() *DisconnectStrategy {
	if d == nil {
		return nil
	}
	c := *d
	if d.Replace != nil {
		r := *d.Replace
		c.Replace = &r
	}
	return &c
}

// LostAfter is how long allocations of the group on a disconnected node
// stay unknown: disconnect.lost_after, else max_client_disconnect, else 0
// (lost as soon as the node misses its heartbeat).
func (tg *TaskGroup) LostAfter() time.Duration {
	if tg.Disconnect != nil && tg.Disconnect.LostAfter > 0 {
		return tg.Disconnect.LostAfter
	}
	if tg.MaxClientDisconnect != nil {
		return *tg.MaxClientDisconnect
	}
	return 0
}

// ReplaceOnDisconnect says whether unknown allocations of the group are
// replaced while their node is disconnected (default true).
func (tg *TaskGroup) ReplaceOnDisconnect() bool {
	if tg.Disconnect != nil && tg.Disconnect.Replace != nil {
		return *tg.Disconnect.Replace
	}
	return true
}

// ReconcileStrategy is the group's reconcile strategy (default best_score,
// also for max_client_disconnect alone).
func (tg *TaskGroup) ReconcileStrategy() string {
	if tg.Disconnect != nil && tg.Disconnect.Reconcile != "" {
		return tg.Disconnect.Reconcile
	}
	return ReconcileBestScore
}

// validateDisconnect checks max_client_disconnect and the disconnect block.
func (tg *TaskGroup) validateDisconnect(errs *MultiError) {
	if tg.MaxClientDisconnect != nil && *tg.MaxClientDisconnect < 0 {
		errs.Add(fmt.Errorf("group %q: max_client_disconnect can't be negative", tg.Name))
	}
	d := tg.Disconnect
	if d == nil {
		return
	}
	if tg.MaxClientDisconnect != nil && d.LostAfter > 0 {
		errs.Add(fmt.Errorf("group %q: set disconnect.lost_after or max_client_disconnect, not both", tg.Name))
	}
	if d.LostAfter < 0 {
		errs.Add(fmt.Errorf("group %q: disconnect.lost_after can't be negative", tg.Name))
	}
	switch d.Reconcile {
	case "", ReconcileBestScore, ReconcileKeepOriginal, ReconcileKeepReplacement, ReconcileLongestRunning:
	default:
		errs.Add(fmt.Errorf("group %q: disconnect.reconcile %q is not one of %q, %q, %q or %q", tg.Name, d.Reconcile,
			ReconcileBestScore, ReconcileKeepOriginal, ReconcileKeepReplacement, ReconcileLongestRunning))
	}
}
