package endpoints

import (
	"sort"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Scaling serves the Scaling.* RPCs: the groups' scaling policies, derived
// from the jobs that hold them (nomadish keeps no policy table).
type Scaling struct {
	d *Deps
}

// ListPolicies lists the policies of namespace's jobs ("*": all), with
// optional job and type filters; blocking on the jobs table.
func (e *Scaling) ListPolicies(args *structs.ScalingPolicyListRequest, reply *structs.ScalingPolicyListResponse) error {
	ns := namespaceOf(args.Namespace)
	keep, err := e.d.namespaceFilter(args.AuthToken, ns, capListScalingPolicies)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableJobs}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		policies, err := scalingPolicies(ws, st, ns)
		if err != nil {
			return 0, err
		}
		reply.Policies = make([]*structs.ScalingPolicyListStub, 0, len(policies))
		for _, p := range policies {
			t := p.Target
			if (keep != nil && !keep(t[structs.ScalingTargetNamespace])) ||
				(args.JobID != "" && t[structs.ScalingTargetJob] != args.JobID) ||
				(args.Type != "" && p.Type != args.Type) {
				continue
			}
			reply.Policies = append(reply.Policies, p.Stub())
		}
		return st.Index(state.TableJobs)
	})
}

// GetPolicy reads one policy by ID (nil when none has it); blocking.
func (e *Scaling) GetPolicy(args *structs.ScalingPolicySpecificRequest, reply *structs.SingleScalingPolicyResponse) error {
	// Looked up by ID in every namespace, then checked against the token.
	keep, err := e.d.namespaceFilter(args.AuthToken, "*", capReadScalingPolicy)
	if err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		policies, err := scalingPolicies(ws, st, "*")
		if err != nil {
			return 0, err
		}
		reply.Policy = nil
		for _, p := range policies {
			if p.ID == args.ID && (keep == nil || keep(p.Target[structs.ScalingTargetNamespace])) {
				reply.Policy = p
			}
		}
		return st.Index(state.TableJobs)
	})
}

// scalingPolicies returns the policies of ns's jobs ("*": all), each with
// its job's indexes, ordered by ID. Children of periodic and parameterized
// jobs are left out (their parent's policy stands for them).
func scalingPolicies(ws memdb.WatchSet, st *state.StateSnapshot, ns string) ([]*structs.ScalingPolicy, error) {
	jobs, err := st.Jobs(ws, ns)
	if err != nil {
		return nil, err
	}
	var out []*structs.ScalingPolicy
	for _, j := range jobs {
		if j.ParentID != "" {
			continue
		}
		for _, tg := range j.TaskGroups {
			if tg.Scaling == nil {
				continue
			}
			p := *tg.Scaling
			p.CreateIndex, p.ModifyIndex = j.CreateIndex, j.JobModifyIndex
			out = append(out, &p)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out, nil
}

// checkScaleBounds refuses (400) a count outside the group's scaling
// policy, as Nomad's Job.Scale.
func checkScaleBounds(tg *structs.TaskGroup, count int64) error {
	if err := tg.Scaling.CheckCount(count); err != nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "group %q: %v", tg.Name, err)
	}
	return nil
}
