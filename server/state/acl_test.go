package state

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestACLTokensBySecretAndBootstrap(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	root := &structs.ACLToken{AccessorID: "a1", SecretID: "s1", Type: structs.ACLManagementToken}
	if ok, _, _ := s.CanBootstrapACLToken(); !ok {
		t.Fatal("fresh store cannot bootstrap")
	}
	if err := s.BootstrapACLToken(10, 0, root); err != nil {
		t.Fatal(err)
	}
	if ok, idx, _ := s.CanBootstrapACLToken(); ok || idx != 10 {
		t.Fatalf("after bootstrap: ok %v, reset index %d", ok, idx)
	}
	if err := s.BootstrapACLToken(11, 0, &structs.ACLToken{AccessorID: "a2", SecretID: "s2"}); err == nil {
		t.Fatal("second bootstrap without the reset index accepted")
	}
	if err := s.BootstrapACLToken(12, 10, &structs.ACLToken{AccessorID: "a3", SecretID: "s3"}); err != nil {
		t.Fatalf("bootstrap with the reset index: %v", err)
	}
	for secret, want := range map[string]string{"s1": "a1", "s3": "a3", "s2": "", "s": "", "": "", "s1x": ""} {
		tok, err := s.ACLTokenBySecretID(nil, secret)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if tok != nil {
			got = tok.AccessorID
		}
		if got != want {
			t.Errorf("secret %q -> %q, want %q", secret, got, want)
		}
	}
	if tok, _ := s.ACLTokenByAccessorID(nil, "a1"); tok == nil || tok.CreateIndex != 10 {
		t.Fatalf("by accessor: %+v", tok)
	}
	if err := s.DeleteACLTokens(13, []string{"a1"}); err != nil {
		t.Fatal(err)
	}
	if tok, _ := s.ACLTokenBySecretID(nil, "s1"); tok != nil {
		t.Fatal("deleted token found by secret")
	}
}

func TestACLRoleNamesUnique(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertACLRoles(1, []*structs.ACLRole{{ID: "r1", Name: "ops"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertACLRoles(2, []*structs.ACLRole{{ID: "r2", Name: "ops"}}); err == nil {
		t.Fatal("duplicate role name accepted")
	}
	if r, _ := s.ACLRoleByName(nil, "ops"); r == nil || r.ID != "r1" {
		t.Fatalf("role by name %+v", r)
	}
}
