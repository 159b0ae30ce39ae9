package endpoints

import (
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// ACL serves the ACL.* RPCs: bootstrap, policies, tokens and roles. Writes
// need a management token; every method answers ErrACLDisabled (400) when
// ACLs are off.
type ACL struct{ d *Deps }

// UpsertPolicies creates or updates policies; each policy's rules must
// parse (a 400 naming the policy and the rule's line:col otherwise).
func (e *ACL) UpsertPolicies(args *structs.ACLPolicyUpsertRequest, reply *structs.GenericResponse) error {
	if _, err := e.d.requireManagement(args.AuthToken); err != nil {
		return err
	}
	if len(args.Policies) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one policy")
	}
	for i, p := range args.Policies {
		if p == nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "policy %d is empty", i)
		}
		if err := p.Validate(); err != nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "policy %d invalid: %v", i, err)
		}
		if _, err := acl.Parse(p.Name+".policy.hcl", p.Rules); err != nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "policy %q invalid: %v", p.Name, err)
		}
		p.SetHash()
	}
	index, _, err := e.d.Apply(structs.ACLPolicyUpsertRequestType, args)
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}

// DeletePolicies deletes policies by name.
func (e *ACL) DeletePolicies(args *structs.ACLPolicyDeleteRequest, reply *structs.GenericResponse) error {
	if _, err := e.d.requireManagement(args.AuthToken); err != nil {
		return err
	}
	if len(args.Names) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one policy")
	}
	index, _, err := e.d.Apply(structs.ACLPolicyDeleteRequestType, args)
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}

// visiblePolicies is nil for a management token (all), else the set of
// policy names token holds directly or through its roles.
func (e *ACL) visiblePolicies(secret string) (map[string]bool, error) {
	if !e.d.ACL.Enabled {
		return nil, structs.ErrACLDisabled
	}
	a, token, err := e.d.ResolveToken(secret)
	if err != nil {
		return nil, err
	}
	if a.IsManagement() {
		return nil, nil
	}
	names, err := tokenPolicyNames(e.d.State().Snapshot(), token)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	return set, nil
}

// ListPolicies lists policies: all for a management token, the token's own
// otherwise; blocking.
func (e *ACL) ListPolicies(args *structs.ACLPolicyListRequest, reply *structs.ACLPolicyListResponse) error {
	visible, err := e.visiblePolicies(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableACLPolicies}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		all, err := st.ACLPolicies(ws)
		if err != nil {
			return 0, err
		}
		reply.Policies = []*structs.ACLPolicyListStub{}
		for _, p := range all {
			if (visible == nil || visible[p.Name]) && strings.HasPrefix(p.Name, args.Prefix) {
				reply.Policies = append(reply.Policies, p.Stub())
			}
		}
		return st.Index(state.TableACLPolicies)
	})
}

// GetPolicy reads one policy (nil when absent): a management token reads
// any, others their own policies and the anonymous one; blocking.
func (e *ACL) GetPolicy(args *structs.ACLPolicySpecificRequest, reply *structs.SingleACLPolicyResponse) error {
	visible, err := e.visiblePolicies(args.AuthToken)
	if err != nil {
		return err
	}
	if visible != nil && !visible[args.Name] && args.Name != structs.AnonymousPolicyName {
		return structs.ErrPermissionDenied
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		p, err := st.ACLPolicyByName(ws, args.Name)
		if err != nil {
			return 0, err
		}
		reply.Policy = p
		if p != nil {
			return p.ModifyIndex, nil
		}
		return st.Index(state.TableACLPolicies)
	})
}
