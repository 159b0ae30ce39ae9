package deploymentwatcher

import (
	"fmt"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// Kind is what the watcher does to a deployment.
type Kind int

const (
	// Eval: allocs became healthy; an eval continues the rollout.
	Eval Kind = iota + 1
	// Promote: every canary is healthy and the groups auto-promote.
	Promote
	// Succeed: every group has all its allocs healthy.
	Succeed
	// Fail: an alloc is unhealthy or a progress deadline passed.
	Fail
)

// Action is one decision of Decide.
type Action struct {
	Kind        Kind
	Description string
}

// Decide returns what to do with a deployment now, given its allocs and the
// healthy count seen at the previous call (seenHealthy; -1 on the first).
// At most one terminal action (Fail or Succeed) is returned, alone.
func Decide(d *structs.Deployment, allocs []*structs.Allocation, now time.Time, seenHealthy int) []Action {
	if d == nil || d.Status != structs.DeploymentStatusRunning {
		return nil
	}
	healthy, done := 0, true
	for _, name := range sortedGroups(d) {
		s := d.TaskGroups[name]
		healthy += s.HealthyAllocs
		if s.UnhealthyAllocs > 0 {
			return []Action{{Kind: Fail, Description: structs.DeploymentStatusDescriptionFailedAllocations}}
		}
		groupDone := s.HealthyAllocs >= s.DesiredTotal && (s.DesiredCanaries == 0 || s.Promoted)
		if groupDone {
			continue
		}
		done = false
		waitingPromotion := s.DesiredCanaries > 0 && !s.Promoted && healthyCanaries(s, allocs) >= s.DesiredCanaries
		if s.ProgressDeadline > 0 && !s.RequireProgressBy.IsZero() && now.After(s.RequireProgressBy) && !waitingPromotion {
			return []Action{{Kind: Fail, Description: structs.DeploymentStatusDescriptionProgressDeadline}}
		}
	}
	if done {
		return []Action{{Kind: Succeed, Description: structs.DeploymentStatusDescriptionSuccessful}}
	}
	var out []Action
	if autoPromote(d, allocs) {
		out = append(out, Action{Kind: Promote, Description: "auto-promoting healthy canaries"})
	}
	if healthy > seenHealthy && seenHealthy >= 0 {
		out = append(out, Action{Kind: Eval, Description: fmt.Sprintf("%d allocs healthy", healthy)})
	}
	return out
}

// Healthy is the deployment's healthy count across groups.
func Healthy(d *structs.Deployment) int {
	n := 0
	for _, s := range d.TaskGroups {
		n += s.HealthyAllocs
	}
	return n
}

// NextDeadline is the earliest progress deadline still ahead, or zero.
func NextDeadline(d *structs.Deployment, now time.Time) time.Time {
	var next time.Time
	for _, s := range d.TaskGroups {
		if s.ProgressDeadline > 0 && s.RequireProgressBy.After(now) && (next.IsZero() || s.RequireProgressBy.Before(next)) {
			next = s.RequireProgressBy
		}
	}
	return next
}

// autoPromote reports whether some group waits for promotion, every group
// with canaries auto-promotes, and all their canaries are healthy.
func autoPromote(d *structs.Deployment, allocs []*structs.Allocation) bool {
	waiting := false
	for _, s := range d.TaskGroups {
		if s.DesiredCanaries == 0 || s.Promoted {
			continue
		}
		if !s.AutoPromote || healthyCanaries(s, allocs) < s.DesiredCanaries {
			return false
		}
		waiting = true
	}
	return waiting
}

func healthyCanaries(s *structs.DeploymentState, allocs []*structs.Allocation) int {
	ids := make(map[string]bool, len(s.PlacedCanaries))
	for _, id := range s.PlacedCanaries {
		ids[id] = true
	}
	n := 0
	for _, a := range allocs {
		if ids[a.ID] && a.DeploymentStatus.IsHealthy() && !a.TerminalStatus() {
			n++
		}
	}
	return n
}

func sortedGroups(d *structs.Deployment) []string {
	out := make([]string, 0, len(d.TaskGroups))
	for n := range d.TaskGroups {
		out = append(out, n)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// RevertTarget returns the job to register on an auto-revert of a failed
// deployment: a copy of the newest stable version older than the deployed
// one, as the next version of cur; nil when no group auto-reverts or there
// is no such version. versions are newest first.
// from is the version copied.
func RevertTarget(d *structs.Deployment, cur *structs.Job, versions []*structs.Job) (job *structs.Job, from uint64) {
	revert := false
	for _, s := range d.TaskGroups {
		revert = revert || s.AutoRevert
	}
	if !revert || cur == nil {
		return nil, 0
	}
	for _, v := range versions {
		if v.Stable && v.Version < d.JobVersion {
			j := v.Copy()
			j.Version, j.Stable, j.Stop = cur.Version+1, false, false
			j.Status, j.StatusDescription = structs.JobStatusPending, ""
			return j, v.Version
		}
	}
	return nil, 0
}

// NewEval returns an eval of the deployment's job.
func NewEval(job *structs.Job, now time.Time) *structs.Evaluation {
	return &structs.Evaluation{
		ID: structs.GenerateUUID(), Namespace: job.Namespace, Priority: job.Priority, Type: job.Type,
		TriggeredBy: structs.EvalTriggerDeploymentWatcher, JobID: job.ID, Status: structs.EvalStatusPending,
		CreateTime: now.UnixNano(), ModifyTime: now.UnixNano(),
	}
}

// FailRequest builds the raft request that fails d (with an eval, and the
// revert job when the deployment auto-reverts and a stable version exists).
func FailRequest(d *structs.Deployment, desc string, cur *structs.Job, versions []*structs.Job, now time.Time) *structs.DeploymentStatusUpdateRequest {
	req := &structs.DeploymentStatusUpdateRequest{DeploymentUpdate: &structs.DeploymentStatusUpdate{
		DeploymentID: d.ID, Status: structs.DeploymentStatusFailed, StatusDescription: desc}}
	if j, from := RevertTarget(d, cur, versions); j != nil {
		req.Job = j
		req.DeploymentUpdate.StatusDescription = fmt.Sprintf("%s - rolling back to job version %d", desc, from)
		j.SubmitTime = now.UnixNano()
	}
	if cur != nil {
		req.Eval = NewEval(cur, now)
	}
	return req
}
