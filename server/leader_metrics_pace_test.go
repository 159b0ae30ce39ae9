package server

import (
	"testing"
	"time"
)

// TestNextSummaryRound: a round that took d holds the next one back for
// 10d from its start; an instant round (a small cluster, or a fake clock)
// holds nothing back.
func TestNextSummaryRound(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		took, want time.Duration
	}{{0, 0}, {time.Microsecond, 10 * time.Microsecond}, {300 * time.Millisecond, 3 * time.Second}} {
		if got := nextSummaryRound(t0, t0.Add(c.took)); !got.Equal(t0.Add(c.want)) {
			t.Errorf("round of %s: next at +%s, want +%s", c.took, got.Sub(t0), c.want)
		}
	}
}
