package structs

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"slices"
	"time"
)

// Token types, Nomad's.
const (
	ACLClientToken     = "client"
	ACLManagementToken = "management"
)

// AnonymousPolicyName is the policy applied to requests without a token.
const AnonymousPolicyName = "anonymous"

// ErrCodeForbidden is a coded error's code for a refused token (403).
const ErrCodeForbidden = 403

// ACL errors. ErrPermissionDenied is what a denied request gets, and
// changes nothing; the message is Nomad's.
var (
	ErrPermissionDenied = &CodedError{Code: ErrCodeForbidden, Message: "Permission denied"}
	ErrTokenNotFound    = &CodedError{Code: ErrCodeForbidden, Message: "ACL token not found"}
	ErrTokenExpired     = &CodedError{Code: ErrCodeForbidden, Message: "ACL token expired"}
	ErrTokenInvalid     = &CodedError{Code: ErrCodeBadRequest, Message: "ACL token is invalid"}
	ErrACLDisabled      = &CodedError{Code: ErrCodeBadRequest, Message: "ACL support disabled"}
)

var validACLName = regexp.MustCompile(`^[a-zA-Z0-9-]{1,128}$`)

// ACLPolicy is a named policy document (Rules, in the acl package's HCL).
type ACLPolicy struct {
	Name        string
	Description string
	Rules       string
	Hash        []byte
	CreateIndex uint64
	ModifyIndex uint64
}

// Validate checks the name and description; the rules are checked by the
// caller with acl.Parse (structs does not import acl).
func (p *ACLPolicy) Validate() error {
	if !validACLName.MatchString(p.Name) {
		return fmt.Errorf("invalid name %q: letters, digits and '-', at most 128", p.Name)
	}
	if len(p.Description) > 256 {
		return fmt.Errorf("description longer than 256")
	}
	return nil
}

// SetHash sets Hash from the name, description and rules.
func (p *ACLPolicy) SetHash() {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", p.Name, p.Description, p.Rules)
	p.Hash = h.Sum(nil)
}

// Stub is the policy's list entry.
func (p *ACLPolicy) Stub() *ACLPolicyListStub {
	return &ACLPolicyListStub{Name: p.Name, Description: p.Description, Hash: p.Hash,
		CreateIndex: p.CreateIndex, ModifyIndex: p.ModifyIndex}
}

// ACLPolicyListStub is a policy in a list.
type ACLPolicyListStub struct {
	Name        string
	Description string
	Hash        []byte
	CreateIndex uint64
	ModifyIndex uint64
}

// ACLTokenRoleLink names a role a token holds, by ID or name.
type ACLTokenRoleLink struct {
	ID   string
	Name string
}

// ACLToken is a token. SecretID is the bearer credential and is compared in
// constant time; AccessorID names the token everywhere else (logs, lists).
type ACLToken struct {
	AccessorID     string
	SecretID       string
	Name           string
	Type           string
	Policies       []string
	Roles          []*ACLTokenRoleLink
	Global         bool
	Hash           []byte
	CreateTime     time.Time
	ExpirationTime *time.Time    `json:",omitempty"`
	ExpirationTTL  time.Duration `json:",omitempty"`
	CreateIndex    uint64
	ModifyIndex    uint64
}

// Copy returns a deep copy.
func (t *ACLToken) Copy() *ACLToken {
	if t == nil {
		return nil
	}
	c := *t
	c.Policies = slices.Clone(t.Policies)
	c.Roles = nil
	for _, r := range t.Roles {
		rc := *r
		c.Roles = append(c.Roles, &rc)
	}
	c.Hash = slices.Clone(t.Hash)
	if t.ExpirationTime != nil {
		e := *t.ExpirationTime
		c.ExpirationTime = &e
	}
	return &c
}

// IsExpired reports whether the token has an expiration time at or before now.
func (t *ACLToken) IsExpired(now time.Time) bool {
	return t != nil && t.ExpirationTime != nil && !t.ExpirationTime.After(now)
}

// SetHash sets Hash from the token's fields that grant access.
func (t *ACLToken) SetHash() {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%v\x00", t.Name, t.Type, t.SecretID, t.Global)
	for _, p := range t.Policies {
		fmt.Fprintf(h, "p:%s\x00", p)
	}
	for _, r := range t.Roles {
		fmt.Fprintf(h, "r:%s\x00", r.ID)
	}
	t.Hash = h.Sum(nil)
}

// Stub is the token's list entry (no secret).
func (t *ACLToken) Stub() *ACLTokenListStub {
	return &ACLTokenListStub{AccessorID: t.AccessorID, Name: t.Name, Type: t.Type,
		Policies: t.Policies, Roles: t.Roles, Global: t.Global, Hash: t.Hash,
		CreateTime: t.CreateTime, ExpirationTime: t.ExpirationTime,
		CreateIndex: t.CreateIndex, ModifyIndex: t.ModifyIndex}
}

// ACLTokenListStub is a token in a list.
type ACLTokenListStub struct {
	AccessorID     string
	Name           string
	Type           string
	Policies       []string
	Roles          []*ACLTokenRoleLink
	Global         bool
	Hash           []byte
	CreateTime     time.Time
	ExpirationTime *time.Time `json:",omitempty"`
	CreateIndex    uint64
	ModifyIndex    uint64
}

// ACLRolePolicyLink names a policy a role holds.
type ACLRolePolicyLink struct {
	Name string
}

// ACLRole is a named set of policies tokens can hold.
type ACLRole struct {
	ID          string
	Name        string
	Description string
	Policies    []*ACLRolePolicyLink
	Hash        []byte
	CreateIndex uint64
	ModifyIndex uint64
}

// Validate checks the name, description and that there is a policy.
func (r *ACLRole) Validate() error {
	if !validACLName.MatchString(r.Name) {
		return fmt.Errorf("invalid name %q: letters, digits and '-', at most 128", r.Name)
	}
	if len(r.Description) > 256 {
		return fmt.Errorf("description longer than 256")
	}
	if len(r.Policies) == 0 {
		return fmt.Errorf("at least one policy should be specified")
	}
	return nil
}

// SetHash sets Hash from the role's name, description and policies.
func (r *ACLRole) SetHash() {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", r.Name, r.Description)
	for _, p := range r.Policies {
		fmt.Fprintf(h, "p:%s\x00", p.Name)
	}
	r.Hash = h.Sum(nil)
}

// Stub is the role's list entry.
func (r *ACLRole) Stub() *ACLRoleListStub {
	return &ACLRoleListStub{ID: r.ID, Name: r.Name, Description: r.Description, Policies: r.Policies,
		Hash: r.Hash, CreateIndex: r.CreateIndex, ModifyIndex: r.ModifyIndex}
}

// ACLRoleListStub is a role in a list.
type ACLRoleListStub struct {
	ID          string
	Name        string
	Description string
	Policies    []*ACLRolePolicyLink
	Hash        []byte
	CreateIndex uint64
	ModifyIndex uint64
}
