package reconcile

import (
	"sort"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// Windows of the reschedule logic (Nomad's values).
const (
	// rescheduleWindow: a failed alloc whose reschedule time is at most this
	// far ahead is replaced now rather than by a follow-up eval.
	rescheduleWindow = time.Second
	// followupWindow: failed allocs whose reschedule times fall within this
	// span of the earliest share one follow-up eval.
	followupWindow = 5 * time.Second
)

// Followup is one delayed reschedule: the scheduler creates a follow-up eval
// due at WaitUntil and records its ID on Allocs (their FollowupEvalID), so
// that later runs do not create another.
type Followup struct {
	WaitUntil time.Time
	Allocs    []*structs.Allocation
}

// delayed is a failed alloc waiting for its reschedule time.
type delayed struct {
	alloc *structs.Allocation
	at    time.Time
}

// isFailedRun reports whether the client reports the alloc failed while the
// server still wants it to run: a candidate for rescheduling.
func isFailedRun(a *structs.Allocation) bool {
	return a.ClientStatus == structs.AllocClientStatusFailed && a.DesiredStatus == structs.AllocDesiredStatusRun
}

// supersededAllocs returns the IDs of the failed allocs that were already
// replaced: named as PreviousAllocation (or with NextAllocation set), or
// older than another alloc with the same name. They are history.
func supersededAllocs(allocs []*structs.Allocation) map[string]bool {
	out := map[string]bool{}
	newest := map[string]uint64{} // name -> highest CreateIndex
	for _, a := range allocs {
		if a.PreviousAllocation != "" {
			out[a.PreviousAllocation] = true
		}
		if a.NextAllocation != "" {
			out[a.ID] = true
		}
		newest[a.Name] = max(newest[a.Name], a.CreateIndex)
	}
	for _, a := range allocs {
		if a.CreateIndex < newest[a.Name] {
			out[a.ID] = true
		}
	}
	return out
}

// ReschedulePolicy is the group's policy; a group without one (a job stored
// before policies existed) gets its job type's default. The policy of the
// current job version applies, also to allocs placed with an older one, so
// that a user who turns rescheduling off stops it at once.
func ReschedulePolicy(job *structs.Job, tg *structs.TaskGroup) *structs.ReschedulePolicy {
	if tg.ReschedulePolicy != nil {
		return tg.ReschedulePolicy
	}
	return structs.DefaultReschedulePolicy(job.Type)
}

// failed decides about one failed alloc the server still wants running:
// history when already replaced; replaced now when its follow-up eval is
// the one running or its reschedule time has come; otherwise kept (it
// counts toward the group's count), waiting for a follow-up eval, or for
// good when the policy allows no more reschedules.
func (g *groupReconciler) failed(a *structs.Allocation, u *structs.DesiredUpdates) {
	if g.superseded[a.ID] {
		return
	}
	at, eligible := a.NextRescheduleTime(ReschedulePolicy(g.job, g.tg))
	switch {
	case a.DesiredTransition.ShouldForceReschedule(): // job eval -force-reschedule
		g.markReplaced(a)
	case !eligible:
		if g.res.NotRescheduled == nil {
			g.res.NotRescheduled = map[string]int{}
		}
		g.res.NotRescheduled[g.tg.Name]++
		g.keep = append(g.keep, a)
	case (g.evalID != "" && a.FollowupEvalID == g.evalID) || !at.After(g.now.Add(rescheduleWindow)):
		g.markReplaced(a)
	case a.FollowupEvalID == "":
		g.keep = append(g.keep, a)
		g.later = append(g.later, delayed{alloc: a, at: at})
	default:
		// Its follow-up eval is already scheduled.
		g.keep = append(g.keep, a)
	}
}

// keepLater drops from later the allocs no longer kept (stopped by a scale
// down) and counts the rest.
func (g *groupReconciler) keepLater(u *structs.DesiredUpdates) {
	if len(g.later) == 0 {
		return
	}
	kept := make(map[string]bool, len(g.keep))
	for _, a := range g.keep {
		kept[a.ID] = true
	}
	out := g.later[:0]
	for _, d := range g.later {
		if kept[d.alloc.ID] {
			out = append(out, d)
		}
	}
	g.later = out
	u.RescheduleLater += uint64(len(out))
}

// batchFollowups groups delayed reschedules by time: each Followup starts at
// the earliest time not yet covered and takes every alloc due within
// followupWindow of it.
func batchFollowups(later []delayed) []Followup {
	sort.SliceStable(later, func(i, j int) bool { return later[i].at.Before(later[j].at) })
	var out []Followup
	for _, d := range later {
		if n := len(out); n > 0 && d.at.Sub(out[n-1].WaitUntil) < followupWindow {
			out[n-1].Allocs = append(out[n-1].Allocs, d.alloc)
			continue
		}
		out = append(out, Followup{WaitUntil: d.at, Allocs: []*structs.Allocation{d.alloc}})
	}
	return out
}
