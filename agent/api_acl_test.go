package agent

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/agent/config"
)

// aclAgent starts an in-process server-only dev agent with ACLs on and
// returns it with an official client that carries no token.
func aclAgent(t *testing.T) (*Agent, *api.Client) {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Name = "acl"
	cfg.Ports = config.Ports{}
	cfg.Client.Enabled = false
	cfg.ACL.Enabled = true
	cfg.EnableDebug = true // /debug/pprof's routes too (TestRouteTableACL)
	logger := hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Info, Output: t.Output()})
	a, err := New(cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Shutdown(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatal(err)
	}
	return a, c
}

func wantAPIError(t *testing.T, err error, code int, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %d %q", code, msg)
	}
	var ue api.UnexpectedResponseError
	if ok := asUnexpected(err, &ue); !ok || ue.StatusCode() != code || !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %v, want %d %q", err, code, msg)
	}
}

func asUnexpected(err error, out *api.UnexpectedResponseError) bool {
	if e, ok := err.(api.UnexpectedResponseError); ok {
		*out = e
		return true
	}
	if e, ok := err.(*api.UnexpectedResponseError); ok {
		*out = *e
		return true
	}
	return false
}

// TestAPIACLOfficialClient drives /v1/acl with the official Go client:
// bootstrap once, policies, roles, tokens, self, expiry bounds, deletes.
func TestAPIACLOfficialClient(t *testing.T) {
	_, c := aclAgent(t)
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	if root.Type != "management" || root.SecretID == "" || root.AccessorID == "" {
		t.Fatalf("bootstrap token %+v", root)
	}
	_, _, err = c.ACLTokens().Bootstrap(nil)
	wantAPIError(t, err, 400, "ACL bootstrap already done (reset index: ")

	// Without a token: 403, nothing written.
	_, err = c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "team-a", Rules: `namespace "team-a" { policy = "write" }`}, nil)
	wantAPIError(t, err, 403, "Permission denied")

	c.SetSecretID(root.SecretID)
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "team-a", Description: "team A", Rules: `namespace "team-a" { policy = "write" }`}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "bad", Rules: "namespace \"x\" {\n  capabilities = [\"sumbit-job\"]\n}"}, nil)
	wantAPIError(t, err, 400, `bad.policy.hcl:2:19: Invalid capability; "sumbit-job" is not a namespace capability. Did you mean "submit-job"?`)
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "ops", Rules: `node { policy = "write" }`}, nil); err != nil {
		t.Fatal(err)
	}
	ps, _, err := c.ACLPolicies().List(nil)
	if err != nil || len(ps) != 2 {
		t.Fatalf("policies %+v, %v", ps, err)
	}
	p, _, err := c.ACLPolicies().Info("team-a", nil)
	if err != nil || p.Description != "team A" || !strings.Contains(p.Rules, "team-a") || p.CreateIndex == 0 {
		t.Fatalf("policy %+v, %v", p, err)
	}
	_, _, err = c.ACLPolicies().Info("nope", nil)
	wantAPIError(t, err, 404, "ACL policy not found")

	role, _, err := c.ACLRoles().Create(&api.ACLRole{Name: "operators", Policies: []*api.ACLRolePolicyLink{{Name: "ops"}}}, nil)
	if err != nil || role.ID == "" {
		t.Fatalf("role %+v, %v", role, err)
	}
	if r, _, err := c.ACLRoles().GetByName("operators", nil); err != nil || r.ID != role.ID {
		t.Fatalf("role by name %+v, %v", r, err)
	}
	role.Description = "ops people"
	if r, _, err := c.ACLRoles().Update(role, nil); err != nil || r.Description != "ops people" {
		t.Fatalf("role update %+v, %v", r, err)
	}
	if rs, _, err := c.ACLRoles().List(nil); err != nil || len(rs) != 1 {
		t.Fatalf("roles %+v, %v", rs, err)
	}

	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: "alice", Type: "client", Policies: []string{"team-a"},
		Roles: []*api.ACLTokenRoleLink{{Name: "operators"}}, ExpirationTTL: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tok.SecretID == "" || tok.ExpirationTime == nil || len(tok.Roles) != 1 || tok.Roles[0].ID != role.ID {
		t.Fatalf("token %+v", tok)
	}
	_, _, err = c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{"team-a"}, ExpirationTTL: time.Second}, nil)
	wantAPIError(t, err, 400, "expiration time cannot be less than 1m0s in the future")
	ts, _, err := c.ACLTokens().List(nil)
	if err != nil || len(ts) != 2 {
		t.Fatalf("tokens %+v, %v", ts, err)
	}
	info, _, err := c.ACLTokens().Info(tok.AccessorID, nil)
	if err != nil || info.Name != "alice" || info.SecretID != tok.SecretID {
		t.Fatalf("token info %+v, %v", info, err)
	}
	info.Name = "alice2"
	if up, _, err := c.ACLTokens().Update(info, nil); err != nil || up.Name != "alice2" || up.SecretID != tok.SecretID {
		t.Fatalf("token update %+v, %v", up, err)
	}

	// The client token: self works, sees only its own policies, can't manage.
	alice, err := api.NewClient(&api.Config{Address: c.Address(), SecretID: tok.SecretID})
	if err != nil {
		t.Fatal(err)
	}
	self, _, err := alice.ACLTokens().Self(nil)
	if err != nil || self.AccessorID != tok.AccessorID {
		t.Fatalf("self %+v, %v", self, err)
	}
	mine, _, err := alice.ACLPolicies().Self(nil)
	if err != nil || len(mine) != 2 {
		t.Fatalf("own policies %+v, %v", mine, err)
	}
	_, _, err = alice.ACLTokens().List(nil)
	wantAPIError(t, err, 403, "Permission denied")
	_, _, err = alice.ACLTokens().Create(&api.ACLToken{Type: "management"}, nil)
	wantAPIError(t, err, 403, "Permission denied")

	// "Authorization: Bearer <secret>" works as X-Nomad-Token does.
	for _, h := range []string{"Bearer " + tok.SecretID, "bearer " + tok.SecretID, "Bearer nope"} {
		req, _ := http.NewRequest(http.MethodGet, c.Address()+"/v1/acl/token/self", nil)
		req.Header.Set("Authorization", h)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := http.StatusOK
		if strings.HasSuffix(h, "nope") {
			want = http.StatusForbidden
		}
		if resp.StatusCode != want {
			t.Errorf("Authorization %q: %d, want %d", h[:6], resp.StatusCode, want)
		}
	}

	// A bad secret is refused, via X-Nomad-Token and Bearer alike.
	bad, _ := api.NewClient(&api.Config{Address: c.Address(), SecretID: "00000000-0000-0000-0000-000000000000"})
	_, _, err = bad.ACLTokens().Self(nil)
	wantAPIError(t, err, 403, "ACL token not found")

	if _, err := c.ACLTokens().Delete(tok.AccessorID, nil); err != nil {
		t.Fatal(err)
	}
	_, _, err = alice.ACLTokens().Self(nil)
	wantAPIError(t, err, 403, "ACL token not found")
	if _, err := c.ACLRoles().Delete(role.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ACLPolicies().Delete("ops", nil); err != nil {
		t.Fatal(err)
	}
	if ps, _, _ := c.ACLPolicies().List(nil); len(ps) != 1 {
		t.Fatalf("after delete: %d policies", len(ps))
	}
}
