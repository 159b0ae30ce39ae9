package endpoints

import (
	"sync"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// anonymousToken is the token of a request without one: it holds the
// anonymous policy, when an operator wrote one.
var anonymousToken = &structs.ACLToken{AccessorID: "anonymous", Name: "Anonymous Token",
	Type: structs.ACLClientToken, Policies: []string{structs.AnonymousPolicyName}}

// policyCache keeps parsed policies by name and hash, so resolving a token
// does not parse its policies' HCL on every request. Stale entries (an
// older hash) are replaced on the next lookup of the name.
type policyCache struct {
	mu sync.Mutex
	m  map[string]cachedPolicy // guarded by mu
}

type cachedPolicy struct {
	hash   string
	policy *acl.Policy
}

var parsedPolicies = &policyCache{m: map[string]cachedPolicy{}}

func (c *policyCache) parse(p *structs.ACLPolicy) (*acl.Policy, error) {
	c.mu.Lock()
	e, ok := c.m[p.Name]
	c.mu.Unlock()
	if ok && e.hash == string(p.Hash) {
		return e.policy, nil
	}
	parsed, err := acl.Parse("policy "+p.Name, p.Rules)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.m[p.Name] = cachedPolicy{hash: string(p.Hash), policy: parsed}
	c.mu.Unlock()
	return parsed, nil
}

// ResolveToken returns the ACL of the token whose secret is secret: nil
// when ACLs are off (allow all), the anonymous policy's ACL for "", a
// management ACL for a management token. A secret no token has gets
// ErrTokenNotFound, an expired token ErrTokenExpired (both 403). The token
// is returned too (anonymousToken for "", nil when ACLs are off).
func (d *Deps) ResolveToken(secret string) (*acl.ACL, *structs.ACLToken, error) {
	if !d.ACL.Enabled {
		return nil, nil, nil
	}
	st := d.State().Snapshot()
	token := anonymousToken
	if secret != "" {
		t, err := st.ACLTokenBySecretID(nil, secret)
		if err != nil {
			return nil, nil, err
		}
		if t == nil {
			return nil, nil, structs.ErrTokenNotFound
		}
		if t.IsExpired(d.Clock.Now()) {
			return nil, nil, structs.ErrTokenExpired
		}
		token = t
	}
	if token.Type == structs.ACLManagementToken {
		return acl.ManagementACL(), token, nil
	}
	a, err := compileToken(st, token)
	return a, token, err
}

// compileToken builds a client token's ACL from its policies and its
// roles' policies. A policy that no longer exists is skipped (Nomad's
// behaviour: deleting a policy takes its rights away).
func compileToken(st *state.StateSnapshot, token *structs.ACLToken) (*acl.ACL, error) {
	names, err := tokenPolicyNames(st, token)
	if err != nil {
		return nil, err
	}
	var policies []*acl.Policy
	for _, n := range names {
		p, err := st.ACLPolicyByName(nil, n)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		parsed, err := parsedPolicies.parse(p)
		if err != nil {
			return nil, structs.NewCodedError(structs.ErrCodeInternal, "ACL policy %q does not parse: %v", n, err)
		}
		policies = append(policies, parsed)
	}
	return acl.NewACL(false, policies), nil
}

// tokenPolicyNames is the token's policies and its roles' policies, each once.
func tokenPolicyNames(st *state.StateSnapshot, token *structs.ACLToken) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, p := range token.Policies {
		add(p)
	}
	for _, link := range token.Roles {
		r, err := st.ACLRoleByID(nil, link.ID)
		if err != nil {
			return nil, err
		}
		if r == nil {
			continue
		}
		for _, p := range r.Policies {
			add(p.Name)
		}
	}
	return out, nil
}

// requireManagement resolves secret and refuses (ErrPermissionDenied)
// anything but a management token. With ACLs off it refuses with
// ErrACLDisabled: the ACL endpoints have nothing to manage then.
func (d *Deps) requireManagement(secret string) (*structs.ACLToken, error) {
	if !d.ACL.Enabled {
		return nil, structs.ErrACLDisabled
	}
	a, token, err := d.ResolveToken(secret)
	if err != nil {
		return nil, err
	}
	if !a.IsManagement() {
		d.Logger.Warn("ACL: permission denied", "accessor", token.AccessorID, "need", "management")
		return nil, structs.ErrPermissionDenied
	}
	return token, nil
}
