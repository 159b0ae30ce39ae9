package gc

import (
	"time"

	"github.com/nomadish/nomadish/structs"
)

// evalVictims applies the evaluation rules of Collect to the evaluations
// (and allocations) of jobs that are not purged. Allocations whose
// evaluation is gone (deleted through Eval.Delete) are judged as if it
// were terminal.
func (ix *indexes) evalVictims(in Input, purged map[structs.NamespacedID]bool, now time.Time, th Thresholds) []Victim {
	var out []Victim
	evalIDs := make(map[string]bool, len(in.Evals))
	for _, e := range in.Evals {
		evalIDs[e.ID] = true
		k := structs.NamespacedID{Namespace: e.Namespace, ID: e.JobID}
		if purged[k] || !e.TerminalStatus() {
			continue
		}
		cutoff := now.Add(-evalThreshold(e.Type, th))
		if time.Unix(0, e.ModifyTime).After(cutoff) {
			continue
		}
		gcEval, allocs := ix.evalCollectable(e.Type, ix.jobs[k], ix.allocsByEval[e.ID], now, cutoff)
		if gcEval {
			out = append(out, Victim{Kind: KindEval, ID: e.ID, Reason: "terminal evaluation past its threshold", Weight: 1})
		}
		out = append(out, allocVictims(allocs)...)
	}
	for _, a := range in.Allocs {
		k := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
		if evalIDs[a.EvalID] || purged[k] {
			continue
		}
		job := ix.jobs[k]
		typ := ""
		if job != nil {
			typ = job.Type
		}
		cutoff := now.Add(-evalThreshold(typ, th))
		_, allocs := ix.evalCollectable(typ, job, []*structs.Allocation{a}, now, cutoff)
		out = append(out, allocVictims(allocs)...)
	}
	return out
}

func evalThreshold(jobType string, th Thresholds) time.Duration {
	if jobType == structs.JobTypeBatch {
		return th.BatchEval
	}
	return th.Eval
}

func allocVictims(allocs []*structs.Allocation) []Victim {
	out := make([]Victim, 0, len(allocs))
	for _, a := range allocs {
		out = append(out, Victim{Kind: KindAlloc, ID: a.ID, Reason: "terminal allocation past its evaluation's threshold", Weight: 1})
	}
	return out
}

// evalCollectable is Nomad's gcEval for a terminal, old evaluation of a
// job (nil: gone) of type jobType: whether the evaluation goes, and which
// of its allocations do. A batch job that exists and is not both dead and
// stopped keeps its current version's allocations (were they deleted, the
// scheduler would run them again); its older versions' terminal ones go,
// and the evaluation with them when that is all it had.
func (ix *indexes) evalCollectable(jobType string, job *structs.Job, allocs []*structs.Allocation, now, cutoff time.Time) (bool, []*structs.Allocation) {
	var gc []*structs.Allocation
	if jobType == structs.JobTypeBatch && job != nil && !(job.Status == structs.JobStatusDead && job.Stop) {
		for _, a := range allocs {
			if a.GCSafe() && a.CreateIndex < job.JobModifyIndex && !time.Unix(0, a.ModifyTime).After(cutoff) {
				gc = append(gc, a)
			}
		}
		return len(gc) == len(allocs), gc
	}
	for _, a := range allocs {
		if allocEligible(a, job, now, cutoff) {
			gc = append(gc, a)
		}
	}
	return len(gc) == len(allocs), gc
}

// allocEligible is Nomad's allocGCEligible: a GC-safe allocation finished
// at or before cutoff may go unless a live job's rescheduling still needs
// it, that is a failed allocation with a reschedule policy that allows
// attempts, not yet replaced (no NextAllocation: the replacement would
// lose its RescheduleTracker history), and either unlimited or within the
// policy's interval of its last reschedule.
func allocEligible(a *structs.Allocation, job *structs.Job, now, cutoff time.Time) bool {
	if !a.GCSafe() || time.Unix(0, a.ModifyTime).After(cutoff) {
		return false
	}
	if job == nil || job.Stop || job.Status == structs.JobStatusDead {
		return true
	}
	if a.DesiredStatus == structs.AllocDesiredStatusStop || a.ClientStatus != structs.AllocClientStatusFailed {
		return true
	}
	var policy *structs.ReschedulePolicy
	if tg := job.LookupTaskGroup(a.TaskGroup); tg != nil {
		policy = tg.ReschedulePolicy
	}
	if policy == nil || (!policy.Unlimited && policy.Attempts == 0) {
		return true
	}
	if a.NextAllocation != "" {
		return true
	}
	if policy.Unlimited || a.RescheduleTracker == nil || len(a.RescheduleTracker.Events) == 0 {
		return false
	}
	last := a.RescheduleTracker.Events[len(a.RescheduleTracker.Events)-1]
	return now.UnixNano()-last.RescheduleTime > policy.Interval.Nanoseconds()
}

// deploymentVictims applies the deployment rule of Collect. A
// deployment's age is its ModifyIndex dated by the time table; when the
// table does not reach back to cutoff (a new leader), the latest modify
// time of its allocations (or its job's submit time when it has none).
func (ix *indexes) deploymentVictims(in Input, purged map[structs.NamespacedID]bool, cutoff time.Time) []Victim {
	var out []Victim
	cutIndex, dated := in.Times.IndexAt(cutoff)
	for _, d := range in.Deployments {
		k := structs.NamespacedID{Namespace: d.Namespace, ID: d.JobID}
		if purged[k] || d.Active() {
			continue
		}
		var last int64
		live := false
		for _, a := range ix.allocsByJob[k] {
			if a.DeploymentID != d.ID {
				continue
			}
			live = live || !a.GCSafe()
			last = max(last, a.ModifyTime)
		}
		if live {
			continue
		}
		if dated {
			if d.ModifyIndex > cutIndex {
				continue
			}
		} else {
			if last == 0 && ix.jobs[k] != nil {
				last = ix.jobs[k].SubmitTime
			}
			if time.Unix(0, last).After(cutoff) {
				continue
			}
		}
		out = append(out, Victim{Kind: KindDeployment, ID: d.ID, Reason: "terminal deployment past deployment_gc_threshold", Weight: 1})
	}
	return out
}
