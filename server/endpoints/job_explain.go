package endpoints

import (
	"errors"
	"strings"
	"time"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/structs"
)

// whyNotNode answers Job.Plan's WhyNotNode: the verdict of the node named by
// nodeRef (ID, unique ID prefix or name) for group, or for every group of
// the job when group is empty, keyed by group name, against the state as the
// dry run's plan would leave it. An unknown or ambiguous node or an unknown
// group is a bad request.
func whyNotNode(st scheduler.State, plan *structs.Plan, job *structs.Job, nodeRef, group string, now time.Time) (map[string]*structs.NodeVerdict, error) {
	node, err := scheduler.ResolveNode(st, nodeRef)
	if err != nil {
		return nil, explainError(err)
	}
	groups := []string{group}
	if group == "" {
		groups = groups[:0]
		for _, tg := range job.TaskGroups {
			groups = append(groups, tg.Name)
		}
	}
	out := make(map[string]*structs.NodeVerdict, len(groups))
	for _, g := range groups {
		v, err := scheduler.ExplainNodeInPlan(st, plan, job, g, node.ID, now)
		if err != nil {
			return nil, explainError(err)
		}
		out[g] = v
	}
	return out, nil
}

// explainError makes the caller's mistakes coded bad requests; state
// failures pass through.
func explainError(err error) error {
	for _, e := range []error{scheduler.ErrUnknownNode, scheduler.ErrAmbiguousNode, scheduler.ErrUnknownGroup} {
		if errors.Is(err, e) {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "why-not-node: %s", strings.TrimPrefix(err.Error(), "scheduler: "))
		}
	}
	return err
}
