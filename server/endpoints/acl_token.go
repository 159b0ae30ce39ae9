package endpoints

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Nomad's default bounds of a token's expiration TTL.
const (
	defaultTokenMinExpirationTTL = time.Minute
	defaultTokenMaxExpirationTTL = 24 * time.Hour
)

// UpsertTokens creates tokens (no AccessorID: new accessor and secret) or
// updates them (name, type, policies, roles; the secret, create time,
// expiration and global flag stay). Management token only.
func (e *ACL) UpsertTokens(args *structs.ACLTokenUpsertRequest, reply *structs.ACLTokenUpsertResponse) error {
	if _, err := e.d.requireManagement(args.AuthToken); err != nil {
		return err
	}
	if len(args.Tokens) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one token")
	}
	st := e.d.State().Snapshot()
	now := e.d.Clock.Now().UTC()
	for i, t := range args.Tokens {
		if t == nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "token %d is empty", i)
		}
		var existing *structs.ACLToken
		if t.AccessorID != "" {
			var err error
			if existing, err = st.ACLTokenByAccessorID(nil, t.AccessorID); err != nil {
				return err
			}
			if existing == nil {
				return structs.NewCodedError(structs.ErrCodeNotFound, "cannot find token %s", t.AccessorID)
			}
		}
		if err := e.prepareToken(st, t, existing, now); err != nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "token %d invalid: %v", i, err)
		}
	}
	index, _, err := e.d.Apply(structs.ACLTokenUpsertRequestType, args)
	if err != nil {
		return err
	}
	st = e.d.State().Snapshot()
	for _, t := range args.Tokens {
		out, err := st.ACLTokenByAccessorID(nil, t.AccessorID)
		if err != nil {
			return err
		}
		if out != nil {
			reply.Tokens = append(reply.Tokens, out.Copy())
		}
	}
	reply.Index = index
	return nil
}

// prepareToken validates t and fills what the server owns: IDs, times,
// role links, hash. existing is the stored token t updates, or nil.
func (e *ACL) prepareToken(st *state.StateSnapshot, t, existing *structs.ACLToken, now time.Time) error {
	if t.Type == "" {
		t.Type = structs.ACLClientToken
	}
	if len(t.Name) > 256 {
		return errf("token name longer than 256")
	}
	switch t.Type {
	case structs.ACLClientToken:
		if len(t.Policies) == 0 && len(t.Roles) == 0 {
			return errf("client token missing policies or roles")
		}
	case structs.ACLManagementToken:
		if len(t.Policies) != 0 || len(t.Roles) != 0 {
			return errf("management token cannot be associated with policies or roles")
		}
	default:
		return errf("token type must be client or management")
	}
	if err := linkRoles(st, t); err != nil {
		return err
	}
	if existing != nil {
		if t.Global != existing.Global {
			return errf("cannot toggle global mode of %s", t.AccessorID)
		}
		t.SecretID, t.CreateTime = existing.SecretID, existing.CreateTime
		t.ExpirationTime, t.ExpirationTTL = existing.ExpirationTime, existing.ExpirationTTL
	} else {
		t.AccessorID, t.SecretID, t.CreateTime = structs.GenerateUUID(), structs.GenerateUUID(), now
		if err := e.setExpiration(t, now); err != nil {
			return err
		}
	}
	t.SetHash()
	return nil
}

// setExpiration turns ExpirationTTL into ExpirationTime and checks it
// against the configured bounds.
func (e *ACL) setExpiration(t *structs.ACLToken, now time.Time) error {
	if t.ExpirationTTL < 0 {
		return errf("token expiration TTL cannot be negative")
	}
	if t.ExpirationTTL > 0 {
		if t.ExpirationTime != nil {
			return errf("token expiration TTL and time cannot both be set")
		}
		exp := now.Add(t.ExpirationTTL)
		t.ExpirationTime = &exp
	}
	if t.ExpirationTime == nil {
		return nil
	}
	minTTL, maxTTL := e.d.ACL.TokenMinExpirationTTL, e.d.ACL.TokenMaxExpirationTTL
	if minTTL == 0 {
		minTTL = defaultTokenMinExpirationTTL
	}
	if maxTTL == 0 {
		maxTTL = defaultTokenMaxExpirationTTL
	}
	switch ttl := t.ExpirationTime.Sub(now); {
	case ttl < minTTL:
		return errf("expiration time cannot be less than %s in the future", minTTL)
	case ttl > maxTTL:
		return errf("expiration time cannot be more than %s in the future", maxTTL)
	}
	return nil
}

// linkRoles resolves each role link (by ID, else by name) to a stored
// role and sets both ID and Name.
func linkRoles(st *state.StateSnapshot, t *structs.ACLToken) error {
	for _, link := range t.Roles {
		if link == nil {
			return errf("empty role link")
		}
		var r *structs.ACLRole
		var err error
		if link.ID != "" {
			r, err = st.ACLRoleByID(nil, link.ID)
		} else {
			r, err = st.ACLRoleByName(nil, link.Name)
		}
		if err != nil {
			return err
		}
		if r == nil {
			return errf("cannot find role %s%s", link.ID, link.Name)
		}
		link.ID, link.Name = r.ID, r.Name
	}
	return nil
}

// DeleteTokens deletes tokens by accessor; management token only.
func (e *ACL) DeleteTokens(args *structs.ACLTokenDeleteRequest, reply *structs.GenericResponse) error {
	if _, err := e.d.requireManagement(args.AuthToken); err != nil {
		return err
	}
	if len(args.AccessorIDs) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one token")
	}
	st := e.d.State().Snapshot()
	var missing []string
	for _, a := range args.AccessorIDs {
		t, err := st.ACLTokenByAccessorID(nil, a)
		if err != nil {
			return err
		}
		if t == nil {
			missing = append(missing, a)
		}
	}
	if len(missing) > 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "Cannot delete nonexistent tokens: %s", strings.Join(missing, ", "))
	}
	index, _, err := e.d.Apply(structs.ACLTokenDeleteRequestType, args)
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}

// ListTokens lists tokens (no secrets); management token only; blocking.
func (e *ACL) ListTokens(args *structs.ACLTokenListRequest, reply *structs.ACLTokenListResponse) error {
	if _, err := e.d.requireManagement(args.AuthToken); err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableACLTokens}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		all, err := st.ACLTokens(ws)
		if err != nil {
			return 0, err
		}
		reply.Tokens = []*structs.ACLTokenListStub{}
		for _, t := range all {
			if strings.HasPrefix(t.AccessorID, args.Prefix) && (!args.GlobalOnly || t.Global) {
				reply.Tokens = append(reply.Tokens, t.Stub())
			}
		}
		return st.Index(state.TableACLTokens)
	})
}

// GetToken reads one token by accessor (nil when absent): a management
// token reads any, others only themselves; blocking.
func (e *ACL) GetToken(args *structs.ACLTokenSpecificRequest, reply *structs.SingleACLTokenResponse) error {
	if !e.d.ACL.Enabled {
		return structs.ErrACLDisabled
	}
	a, caller, err := e.d.ResolveToken(args.AuthToken)
	if err != nil {
		return err
	}
	if !a.IsManagement() && caller.AccessorID != args.AccessorID {
		return structs.ErrPermissionDenied
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		t, err := st.ACLTokenByAccessorID(ws, args.AccessorID)
		if err != nil {
			return 0, err
		}
		reply.Token = t.Copy()
		if t != nil {
			return t.ModifyIndex, nil
		}
		return st.Index(state.TableACLTokens)
	})
}

// GetTokenBySecret reads the token whose secret is args.SecretID (the
// caller's own: /v1/acl/token/self). Unknown: ErrTokenNotFound; expired:
// ErrTokenExpired (both 403).
func (e *ACL) GetTokenBySecret(args *structs.ResolveACLTokenRequest, reply *structs.SingleACLTokenResponse) error {
	if !e.d.ACL.Enabled {
		return structs.ErrACLDisabled
	}
	if args.SecretID == "" {
		return structs.ErrTokenNotFound
	}
	if _, _, err := e.d.ResolveToken(args.SecretID); err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		t, err := st.ACLTokenBySecretID(ws, args.SecretID)
		if err != nil {
			return 0, err
		}
		if t == nil {
			return 0, structs.ErrTokenNotFound
		}
		reply.Token = t.Copy()
		return t.ModifyIndex, nil
	})
}

// errf is fmt.Errorf for validation messages (wrapped in a 400 by callers).
func errf(format string, args ...any) error { return fmt.Errorf(format, args...) }
