package structs

// PreemptedDescription is the DesiredDescription of an allocation evicted to
// make room for the allocation with ID by.
func PreemptedDescription(by string) string { return "Preempted by alloc ID " + by }

// AppendPreemptedAlloc records that a is evicted to make room for the
// allocation with ID by. The plan holds a shallow copy of a with
// DesiredStatus evict, the description and PreemptedByAllocation set; the
// copy keeps a's Job so the plan applier can create an eval for it.
func (p *Plan) AppendPreemptedAlloc(a *Allocation, by string) {
	c := *a
	c.DesiredStatus = AllocDesiredStatusEvict
	c.DesiredDescription = PreemptedDescription(by)
	c.PreemptedByAllocation = by
	p.NodePreemptions[a.NodeID] = append(p.NodePreemptions[a.NodeID], &c)
}

// PreemptionEvals returns one pending eval (TriggeredBy "preemption") for
// every job that loses allocations in preempted, in first-seen order, so the
// job's scheduler places them again (when capacity allows). Allocations
// without a Job are skipped. now stamps CreateTime/ModifyTime (unix nanos).
func PreemptionEvals(preempted []*Allocation, now int64) []*Evaluation {
	var out []*Evaluation
	seen := map[NamespacedID]bool{}
	for _, a := range preempted {
		if a.Job == nil {
			continue
		}
		id := NamespacedID{Namespace: a.Namespace, ID: a.JobID}
		if seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, &Evaluation{
			ID: GenerateUUID(), Namespace: a.Namespace, Priority: a.Job.Priority, Type: a.Job.Type,
			TriggeredBy: EvalTriggerPreemption, JobID: a.JobID, JobModifyIndex: a.Job.JobModifyIndex,
			Status: EvalStatusPending, CreateTime: now, ModifyTime: now,
		})
	}
	return out
}
