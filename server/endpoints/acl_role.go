package endpoints

import (
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// UpsertRoles creates roles (no ID: a new one) or updates them; each
// policy a role names must exist unless AllowMissingPolicies. Management
// token only.
func (e *ACL) UpsertRoles(args *structs.ACLRolesUpsertRequest, reply *structs.ACLRolesUpsertResponse) error {
	if _, err := e.d.requireManagement(args.AuthToken); err != nil {
		return err
	}
	if len(args.ACLRoles) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one role")
	}
	st := e.d.State().Snapshot()
	for i, r := range args.ACLRoles {
		if r == nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "role %d is empty", i)
		}
		if err := r.Validate(); err != nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "role %d invalid: %v", i, err)
		}
		if r.ID == "" {
			r.ID = structs.GenerateUUID()
		} else if old, err := st.ACLRoleByID(nil, r.ID); err != nil {
			return err
		} else if old == nil {
			return structs.NewCodedError(structs.ErrCodeNotFound, "cannot find role %s", r.ID)
		}
		if other, err := st.ACLRoleByName(nil, r.Name); err != nil {
			return err
		} else if other != nil && other.ID != r.ID {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "role %d invalid: role with name %s already exists", i, r.Name)
		}
		for _, p := range r.Policies {
			if p == nil || p.Name == "" {
				return structs.NewCodedError(structs.ErrCodeBadRequest, "role %d invalid: empty policy link", i)
			}
			if args.AllowMissingPolicies {
				continue
			}
			if pol, err := st.ACLPolicyByName(nil, p.Name); err != nil {
				return err
			} else if pol == nil {
				return structs.NewCodedError(structs.ErrCodeBadRequest, "role %d invalid: cannot find policy %s", i, p.Name)
			}
		}
		r.SetHash()
	}
	index, _, err := e.d.Apply(structs.ACLRoleUpsertRequestType, args)
	if err != nil {
		return err
	}
	st = e.d.State().Snapshot()
	for _, r := range args.ACLRoles {
		out, err := st.ACLRoleByID(nil, r.ID)
		if err != nil {
			return err
		}
		if out != nil {
			c := *out
			reply.ACLRoles = append(reply.ACLRoles, &c)
		}
	}
	reply.Index = index
	return nil
}

// DeleteRoles deletes roles by ID; management token only.
func (e *ACL) DeleteRoles(args *structs.ACLRolesDeleteByIDRequest, reply *structs.GenericResponse) error {
	if _, err := e.d.requireManagement(args.AuthToken); err != nil {
		return err
	}
	if len(args.ACLRoleIDs) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one role")
	}
	st := e.d.State().Snapshot()
	for _, id := range args.ACLRoleIDs {
		if r, err := st.ACLRoleByID(nil, id); err != nil {
			return err
		} else if r == nil {
			return structs.NewCodedError(structs.ErrCodeNotFound, "ACL role not found: %s", id)
		}
	}
	index, _, err := e.d.Apply(structs.ACLRoleDeleteRequestType, args)
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}

// visibleRoles is nil for a management token (all), else the IDs of the
// roles the caller's token holds.
func (e *ACL) visibleRoles(secret string) (map[string]bool, error) {
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
	set := map[string]bool{}
	for _, l := range token.Roles {
		set[l.ID] = true
	}
	return set, nil
}

// ListRoles lists roles: all for a management token, the token's own
// otherwise; Prefix filters IDs; blocking.
func (e *ACL) ListRoles(args *structs.ACLRolesListRequest, reply *structs.ACLRolesListResponse) error {
	visible, err := e.visibleRoles(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableACLRoles}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		all, err := st.ACLRoles(ws)
		if err != nil {
			return 0, err
		}
		reply.ACLRoles = []*structs.ACLRoleListStub{}
		for _, r := range all {
			if (visible == nil || visible[r.ID]) && strings.HasPrefix(r.ID, args.Prefix) {
				reply.ACLRoles = append(reply.ACLRoles, r.Stub())
			}
		}
		return st.Index(state.TableACLRoles)
	})
}

// GetRole reads one role by ID or name (nil when absent): management
// tokens read any, others the roles they hold; blocking.
func (e *ACL) GetRole(args *structs.ACLRoleSpecificRequest, reply *structs.SingleACLRoleResponse) error {
	visible, err := e.visibleRoles(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		var r *structs.ACLRole
		var err error
		if args.RoleID != "" {
			r, err = st.ACLRoleByID(ws, args.RoleID)
		} else {
			r, err = st.ACLRoleByName(ws, args.RoleName)
		}
		if err != nil {
			return 0, err
		}
		if r != nil && visible != nil && !visible[r.ID] {
			return 0, structs.ErrPermissionDenied
		}
		reply.ACLRole = r
		if r != nil {
			return r.ModifyIndex, nil
		}
		return st.Index(state.TableACLRoles)
	})
}
