package periodic

import (
	"time"

	"github.com/nomadish/nomadish/structs"
)

// Input is what Decide needs of one periodic job.
type Input struct {
	Config *structs.PeriodicConfig
	// Last is the last recorded launch; zero when the job never launched.
	Last time.Time
	// Since is when the job was registered: without a last launch, only
	// launches after it are due.
	Since time.Time
	Now   time.Time
	// ChildRunning says a child of the job is not yet dead (for
	// prohibit_overlap).
	ChildRunning bool
}

// Decision says what to do for one periodic job now.
type Decision struct {
	// Launch is the launch time due now (zero: nothing due). When several
	// launches were missed (the leader was down), only the latest is due:
	// launched once, never repeated, none older.
	Launch time.Time
	// Skip says the due launch is recorded but no child started
	// (prohibit_overlap while a child runs).
	Skip bool
	// Next is the first launch after Now (zero: none, e.g. a cron that
	// never fires again).
	Next time.Time
}

// Decide returns the launch due at in.Now, if any, and the next one. Pure.
func Decide(in Input) Decision {
	var d Decision
	base := in.Last
	if base.IsZero() {
		base = in.Since
	}
	if latest := latestDue(in.Config, base, in.Now); !latest.IsZero() {
		d.Launch = latest
		d.Skip = in.Config.ProhibitOverlap && in.ChildRunning
	}
	d.Next = in.Config.Next(in.Now)
	return d
}

// latestDue returns the latest launch time t with base < t <= now, or zero.
// It searches windows doubling back from now, so a long gap (a job whose
// last launch is a year old, every second) costs a few cron evaluations,
// not one per missed launch.
func latestDue(cfg *structs.PeriodicConfig, base, now time.Time) time.Time {
	if !now.After(base) {
		return time.Time{}
	}
	for d := time.Second; ; d *= 2 {
		start := now.Add(-d)
		if !start.After(base) {
			start = base
		}
		t := cfg.Next(start)
		if !t.IsZero() && !t.After(now) {
			for n := cfg.Next(t); !n.IsZero() && !n.After(now); n = cfg.Next(n) {
				t = n
			}
			return t
		}
		if start.Equal(base) {
			return time.Time{}
		}
	}
}
