package checks

import "time"

// Health is one check of an allocation as deployment health sees it:
// its on_update and its reported status since when.
type Health struct {
	ID       string
	OnUpdate string // require_healthy (""), ignore_warnings or ignore
	Status   string // pending until the check ran in its current task instance
	Since    time.Time
}
