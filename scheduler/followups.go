package scheduler

import (
	"fmt"
	"strings"
	"time"

	"github.com/nomadish/nomadish/scheduler/reconcile"
	"github.com/nomadish/nomadish/structs"
)

// followupEvalDesc is the StatusDescription of a follow-up eval.
const followupEvalDesc = "created for delayed rescheduling"

// createFollowups creates one pending alloc-failure eval per Followup, due
// at its WaitUntil, and adds to the plan an in-place update of each of its
// allocs with only FollowupEvalID changed. Evals are created before the plan
// is submitted: an eval whose allocs were not updated only runs a
// reconcile for nothing, while an alloc pointing at an eval that was never
// created would wait for good.
func (s *genericScheduler) createFollowups(followups []reconcile.Followup) error {
	now := s.now().UnixNano()
	for _, f := range followups {
		e := &structs.Evaluation{
			ID: structs.GenerateUUID(), Namespace: s.job.Namespace, Priority: s.job.Priority, Type: s.job.Type,
			TriggeredBy: structs.EvalTriggerRetryFailedAlloc, JobID: s.job.ID, JobModifyIndex: s.job.JobModifyIndex,
			Status: structs.EvalStatusPending, StatusDescription: followupEvalDesc, WaitUntil: f.WaitUntil,
			PreviousEval: s.eval.ID, CreateTime: now, ModifyTime: now,
		}
		if err := s.planner.CreateEval(e); err != nil {
			return fmt.Errorf("creating follow-up eval for delayed reschedule: %w", err)
		}
		s.logger.Debug("failed allocs wait for their reschedule delay", "eval_id", s.eval.ID,
			"followup_eval_id", e.ID, "wait_until", f.WaitUntil, "allocs", len(f.Allocs))
		for _, a := range f.Allocs {
			u := a.Copy()
			u.FollowupEvalID = e.ID
			s.plan.AppendAlloc(u)
		}
	}
	return nil
}

// notRescheduledDesc explains failed allocs left unreplaced, or is "".
func notRescheduledDesc(byGroup map[string]int) string {
	if len(byGroup) == 0 {
		return ""
	}
	parts := make([]string, 0, len(byGroup))
	for _, g := range sortedKeys(byGroup) {
		parts = append(parts, fmt.Sprintf("%s=%d", g, byGroup[g]))
	}
	return "failed allocs not rescheduled, reschedule policy exhausted or disabled: " + strings.Join(parts, " ")
}

// createDisconnectFollowup creates the eval that runs when the earliest
// disconnect window of the allocs just marked unknown ends (zero: none), so
// a group whose window is shorter than the node's longest is lost on time.
func (s *genericScheduler) createDisconnectFollowup(at time.Time) error {
	if at.IsZero() {
		return nil
	}
	now := s.now().UnixNano()
	e := &structs.Evaluation{
		ID: structs.GenerateUUID(), Namespace: s.job.Namespace, Priority: s.job.Priority, Type: s.job.Type,
		TriggeredBy: structs.EvalTriggerMaxDisconnectTimeout, JobID: s.job.ID, JobModifyIndex: s.job.JobModifyIndex,
		Status: structs.EvalStatusPending, WaitUntil: at, PreviousEval: s.eval.ID, CreateTime: now, ModifyTime: now,
	}
	if err := s.planner.CreateEval(e); err != nil {
		return fmt.Errorf("creating the disconnect follow-up eval: %w", err)
	}
	return nil
}
