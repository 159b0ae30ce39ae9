package endpoints

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/structs"
)

// aclDeps is testDeps with ACLs on and an Apply that writes the ACL
// entries straight to the store (what the FSM does with them).
func aclDeps(t *testing.T) (*Deps, *ACL) {
	t.Helper()
	d := testDeps(t)
	d.ACL = ACLConfig{Enabled: true, BootstrapResetFile: filepath.Join(t.TempDir(), "acl-bootstrap-reset")}
	var index uint64 = 100
	d.Apply = func(mt structs.MessageType, msg any) (uint64, any, error) {
		index++
		st := d.State()
		var err error
		switch m := msg.(type) {
		case *structs.ACLTokenBootstrapRequest:
			err = st.BootstrapACLToken(index, m.ResetIndex, m.Token)
		case *structs.ACLTokenUpsertRequest:
			err = st.UpsertACLTokens(index, m.Tokens)
		case *structs.ACLTokenDeleteRequest:
			err = st.DeleteACLTokens(index, m.AccessorIDs)
		case *structs.ACLPolicyUpsertRequest:
			err = st.UpsertACLPolicies(index, m.Policies)
		case *structs.ACLPolicyDeleteRequest:
			err = st.DeleteACLPolicies(index, m.Names)
		case *structs.ACLRolesUpsertRequest:
			err = st.UpsertACLRoles(index, m.ACLRoles)
		case *structs.ACLRolesDeleteByIDRequest:
			err = st.DeleteACLRoles(index, m.ACLRoleIDs)
		default:
			t.Fatalf("unexpected apply %d %T", mt, msg)
		}
		return index, nil, err
	}
	return d, &ACL{d: d}
}

func wantCode(t *testing.T, err error, code int, msg string) {
	t.Helper()
	c, m := structs.ErrorCode(err)
	if err == nil || c != code || !strings.Contains(m, msg) {
		t.Fatalf("error %v, want %d %q", err, code, msg)
	}
}

func bootstrap(t *testing.T, e *ACL) *structs.ACLToken {
	t.Helper()
	var r structs.ACLTokenUpsertResponse
	if err := e.Bootstrap(&structs.ACLTokenBootstrapRequest{}, &r); err != nil {
		t.Fatal(err)
	}
	return r.Tokens[0]
}

func TestACLDisabled(t *testing.T) {
	d := testDeps(t)
	e := &ACL{d: d}
	err := e.Bootstrap(&structs.ACLTokenBootstrapRequest{}, &structs.ACLTokenUpsertResponse{})
	if !errors.Is(err, structs.ErrACLDisabled) {
		t.Fatalf("bootstrap with ACLs off: %v", err)
	}
	if a, _, err := d.ResolveToken("anything"); a != nil || err != nil {
		t.Fatalf("ACLs off resolve = %v, %v; want nil ACL (allow all)", a, err)
	}
}

func TestACLBootstrapOnceAndReset(t *testing.T) {
	d, e := aclDeps(t)
	root := bootstrap(t, e)
	if root.Type != structs.ACLManagementToken || root.SecretID == "" || !root.Global || root.Name != "Bootstrap Token" {
		t.Fatalf("bootstrap token %+v", root)
	}
	err := e.Bootstrap(&structs.ACLTokenBootstrapRequest{}, &structs.ACLTokenUpsertResponse{})
	wantCode(t, err, 400, "ACL bootstrap already done (reset index: "+strconv.FormatUint(root.CreateIndex, 10)+")")

	if err := os.WriteFile(d.ACL.BootstrapResetFile, []byte("7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = e.Bootstrap(&structs.ACLTokenBootstrapRequest{}, &structs.ACLTokenUpsertResponse{})
	wantCode(t, err, 400, "Invalid bootstrap reset index (specified 7")

	if err := os.WriteFile(d.ACL.BootstrapResetFile, []byte(strconv.FormatUint(root.CreateIndex, 10)), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
	var r structs.ACLTokenUpsertResponse
	if err := e.Bootstrap(&structs.ACLTokenBootstrapRequest{BootstrapSecret: secret}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Tokens[0].SecretID != secret {
		t.Fatalf("given secret not used: %+v", r.Tokens[0])
	}
	// The old reset index is spent.
	err = e.Bootstrap(&structs.ACLTokenBootstrapRequest{}, &structs.ACLTokenUpsertResponse{})
	wantCode(t, err, 400, "Invalid bootstrap reset index")
}

func TestACLBootstrapSecretMustBeUUID(t *testing.T) {
	d, e := aclDeps(t)
	err := e.Bootstrap(&structs.ACLTokenBootstrapRequest{BootstrapSecret: "root"}, &structs.ACLTokenUpsertResponse{})
	wantCode(t, err, 400, "UUID")
	if ok, _, _ := d.State().Snapshot().CanBootstrapACLToken(); !ok {
		t.Fatal("a refused bootstrap changed the state")
	}
}

func TestACLPoliciesTokensRoles(t *testing.T) {
	d, e := aclDeps(t)
	root := bootstrap(t, e)
	mgmt := structs.WriteRequest{AuthToken: root.SecretID}

	// Bad rules: 400 with the position; anonymous and unknown tokens: 403.
	bad := &structs.ACLPolicyUpsertRequest{Policies: []*structs.ACLPolicy{{Name: "bad", Rules: "namespace \"x\" {\n  policy = \"wirte\"\n}"}}, WriteRequest: mgmt}
	wantCode(t, e.UpsertPolicies(bad, &structs.GenericResponse{}), 400, `bad.policy.hcl:2:12: Invalid policy`)
	anon := &structs.ACLPolicyUpsertRequest{Policies: []*structs.ACLPolicy{{Name: "p", Rules: `node { policy = "read" }`}}}
	wantCode(t, e.UpsertPolicies(anon, &structs.GenericResponse{}), 403, "Permission denied")
	anon.AuthToken = "not-a-token"
	wantCode(t, e.UpsertPolicies(anon, &structs.GenericResponse{}), 403, "ACL token not found")
	if ps, _ := d.State().Snapshot().ACLPolicies(nil); len(ps) != 0 {
		t.Fatalf("refused upserts stored %d policies", len(ps))
	}

	up := &structs.ACLPolicyUpsertRequest{WriteRequest: mgmt, Policies: []*structs.ACLPolicy{
		{Name: "team-a", Rules: `namespace "team-a" { policy = "write" }`},
		{Name: "readonly", Rules: `namespace "*" { policy = "read" }`},
		{Name: "ops", Rules: `node { policy = "write" }`},
	}}
	if err := e.UpsertPolicies(up, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}

	var rr structs.ACLRolesUpsertResponse
	roleReq := &structs.ACLRolesUpsertRequest{WriteRequest: mgmt, ACLRoles: []*structs.ACLRole{{Name: "operators", Policies: []*structs.ACLRolePolicyLink{{Name: "ops"}}}}}
	if err := e.UpsertRoles(roleReq, &rr); err != nil {
		t.Fatal(err)
	}
	missing := &structs.ACLRolesUpsertRequest{WriteRequest: mgmt, ACLRoles: []*structs.ACLRole{{Name: "x", Policies: []*structs.ACLRolePolicyLink{{Name: "nope"}}}}}
	wantCode(t, e.UpsertRoles(missing, &structs.ACLRolesUpsertResponse{}), 400, "cannot find policy nope")

	var tr structs.ACLTokenUpsertResponse
	tokReq := &structs.ACLTokenUpsertRequest{WriteRequest: mgmt, Tokens: []*structs.ACLToken{{
		Name: "team-a", Type: "client", Policies: []string{"team-a"}, Roles: []*structs.ACLTokenRoleLink{{Name: "operators"}},
	}}}
	if err := e.UpsertTokens(tokReq, &tr); err != nil {
		t.Fatal(err)
	}
	tok := tr.Tokens[0]
	if tok.SecretID == "" || tok.AccessorID == "" || tok.Roles[0].ID != rr.ACLRoles[0].ID {
		t.Fatalf("created token %+v", tok)
	}

	a, _, err := d.ResolveToken(tok.SecretID)
	if err != nil {
		t.Fatal(err)
	}
	if !a.AllowNamespaceOperation("team-a", acl.NamespaceCapabilitySubmitJob) || a.AllowNamespace("team-b") ||
		!a.AllowNodeWrite() || a.IsManagement() {
		t.Fatal("client token's ACL is wrong")
	}

	// A client token sees its own policies (direct and through roles) only.
	var pl structs.ACLPolicyListResponse
	if err := e.ListPolicies(&structs.ACLPolicyListRequest{QueryOptions: structs.QueryOptions{AuthToken: tok.SecretID}}, &pl); err != nil {
		t.Fatal(err)
	}
	if len(pl.Policies) != 2 || pl.Policies[0].Name != "ops" || pl.Policies[1].Name != "team-a" {
		t.Fatalf("client policy list = %+v", pl.Policies)
	}
	err = e.GetPolicy(&structs.ACLPolicySpecificRequest{Name: "readonly", QueryOptions: structs.QueryOptions{AuthToken: tok.SecretID}}, &structs.SingleACLPolicyResponse{})
	wantCode(t, err, 403, "Permission denied")
	err = e.ListTokens(&structs.ACLTokenListRequest{QueryOptions: structs.QueryOptions{AuthToken: tok.SecretID}}, &structs.ACLTokenListResponse{})
	wantCode(t, err, 403, "Permission denied")
	err = e.GetToken(&structs.ACLTokenSpecificRequest{AccessorID: root.AccessorID, QueryOptions: structs.QueryOptions{AuthToken: tok.SecretID}}, &structs.SingleACLTokenResponse{})
	wantCode(t, err, 403, "Permission denied")
	var self structs.SingleACLTokenResponse
	if err := e.GetTokenBySecret(&structs.ResolveACLTokenRequest{SecretID: tok.SecretID}, &self); err != nil || self.Token.AccessorID != tok.AccessorID {
		t.Fatalf("self = %+v, %v", self.Token, err)
	}
	var tl structs.ACLTokenListResponse
	if err := e.ListTokens(&structs.ACLTokenListRequest{QueryOptions: structs.QueryOptions{AuthToken: root.SecretID}}, &tl); err != nil || len(tl.Tokens) != 2 {
		t.Fatalf("management token list = %d, %v", len(tl.Tokens), err)
	}

	// Update keeps the secret; delete removes it.
	upd := tok.Copy()
	upd.SecretID, upd.Name = "", "renamed"
	tr = structs.ACLTokenUpsertResponse{}
	if err := e.UpsertTokens(&structs.ACLTokenUpsertRequest{WriteRequest: mgmt, Tokens: []*structs.ACLToken{upd}}, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Tokens[0].SecretID != tok.SecretID || tr.Tokens[0].Name != "renamed" {
		t.Fatalf("updated token %+v", tr.Tokens[0])
	}
	if err := e.DeleteTokens(&structs.ACLTokenDeleteRequest{WriteRequest: mgmt, AccessorIDs: []string{tok.AccessorID}}, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.ResolveToken(tok.SecretID); !errors.Is(err, structs.ErrTokenNotFound) {
		t.Fatalf("deleted token resolves: %v", err)
	}
}

func TestACLTokenExpiration(t *testing.T) {
	d, e := aclDeps(t)
	root := bootstrap(t, e)
	mgmt := structs.WriteRequest{AuthToken: root.SecretID}
	if err := e.UpsertPolicies(&structs.ACLPolicyUpsertRequest{WriteRequest: mgmt, Policies: []*structs.ACLPolicy{{Name: "r", Rules: `node { policy = "read" }`}}}, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	mk := func(ttl time.Duration) (*structs.ACLToken, error) {
		var r structs.ACLTokenUpsertResponse
		err := e.UpsertTokens(&structs.ACLTokenUpsertRequest{WriteRequest: mgmt, Tokens: []*structs.ACLToken{{Policies: []string{"r"}, ExpirationTTL: ttl}}}, &r)
		if err != nil {
			return nil, err
		}
		return r.Tokens[0], nil
	}
	_, err := mk(time.Second)
	wantCode(t, err, 400, "expiration time cannot be less than 1m0s in the future")
	_, err = mk(48 * time.Hour)
	wantCode(t, err, 400, "expiration time cannot be more than 24h0m0s in the future")
	tok, err := mk(10 * time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Type != structs.ACLClientToken || tok.ExpirationTime == nil {
		t.Fatalf("token %+v", tok)
	}
	if _, _, err := d.ResolveToken(tok.SecretID); err != nil {
		t.Fatal(err)
	}
	d.Clock.(*clocktest.FakeClock).Advance(11 * time.Minute)
	_, _, err = d.ResolveToken(tok.SecretID)
	wantCode(t, err, 403, "ACL token expired")
	err = e.GetTokenBySecret(&structs.ResolveACLTokenRequest{SecretID: tok.SecretID}, &structs.SingleACLTokenResponse{})
	wantCode(t, err, 403, "ACL token expired")
}

func TestACLAnonymousPolicy(t *testing.T) {
	d, e := aclDeps(t)
	root := bootstrap(t, e)
	a, _, err := d.ResolveToken("")
	if err != nil || a.AllowNamespace("default") {
		t.Fatalf("anonymous without a policy: %v, %v", a.AllowNamespace("default"), err)
	}
	up := &structs.ACLPolicyUpsertRequest{WriteRequest: structs.WriteRequest{AuthToken: root.SecretID},
		Policies: []*structs.ACLPolicy{{Name: "anonymous", Rules: `namespace "default" { policy = "read" }`}}}
	if err := e.UpsertPolicies(up, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	a, _, err = d.ResolveToken("")
	if err != nil || !a.AllowNamespaceOperation("default", "list-jobs") || a.AllowNamespaceOperation("default", "submit-job") {
		t.Fatalf("anonymous policy not applied: %v", err)
	}
}
