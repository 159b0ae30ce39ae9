package structs

// ACLTokenBootstrapRequest creates the first management token (ACL.Bootstrap).
// BootstrapSecret, when set, is the new token's secret (a UUID). ResetIndex
// is set by the server from the data dir's reset file; callers' values are
// ignored.
type ACLTokenBootstrapRequest struct {
	Token           *ACLToken
	ResetIndex      uint64
	BootstrapSecret string
	WriteRequest
}

// ACLTokenUpsertRequest creates or updates tokens (ACL.UpsertTokens).
type ACLTokenUpsertRequest struct {
	Tokens []*ACLToken
	WriteRequest
}

// ACLTokenUpsertResponse answers ACL.UpsertTokens and ACL.Bootstrap with
// the stored tokens, secrets included.
type ACLTokenUpsertResponse struct {
	Tokens []*ACLToken
	WriteMeta
}

// ACLTokenDeleteRequest deletes tokens by accessor (ACL.DeleteTokens).
type ACLTokenDeleteRequest struct {
	AccessorIDs []string
	WriteRequest
}

// ACLTokenListRequest lists tokens (ACL.ListTokens); Prefix filters accessors.
type ACLTokenListRequest struct {
	GlobalOnly bool
	QueryOptions
}

// ACLTokenListResponse answers ACL.ListTokens.
type ACLTokenListResponse struct {
	Tokens []*ACLTokenListStub
	QueryMeta
}

// ACLTokenSpecificRequest reads one token by accessor (ACL.GetToken).
type ACLTokenSpecificRequest struct {
	AccessorID string
	QueryOptions
}

// ResolveACLTokenRequest reads the token whose secret is SecretID
// (ACL.GetTokenBySecret: /v1/acl/token/self with SecretID = AuthToken).
type ResolveACLTokenRequest struct {
	SecretID string
	QueryOptions
}

// SingleACLTokenResponse answers ACL.GetToken and ACL.GetTokenBySecret;
// Token is nil when not found.
type SingleACLTokenResponse struct {
	Token *ACLToken
	QueryMeta
}

// ACLPolicyUpsertRequest creates or updates policies (ACL.UpsertPolicies).
type ACLPolicyUpsertRequest struct {
	Policies []*ACLPolicy
	WriteRequest
}

// ACLPolicyDeleteRequest deletes policies by name (ACL.DeletePolicies).
type ACLPolicyDeleteRequest struct {
	Names []string
	WriteRequest
}

// ACLPolicyListRequest lists policies (ACL.ListPolicies).
type ACLPolicyListRequest struct {
	QueryOptions
}

// ACLPolicyListResponse answers ACL.ListPolicies.
type ACLPolicyListResponse struct {
	Policies []*ACLPolicyListStub
	QueryMeta
}

// ACLPolicySpecificRequest reads one policy (ACL.GetPolicy).
type ACLPolicySpecificRequest struct {
	Name string
	QueryOptions
}

// SingleACLPolicyResponse answers ACL.GetPolicy; Policy is nil when not found.
type SingleACLPolicyResponse struct {
	Policy *ACLPolicy
	QueryMeta
}

// ACLRolesUpsertRequest creates or updates roles (ACL.UpsertRoles).
type ACLRolesUpsertRequest struct {
	ACLRoles             []*ACLRole
	AllowMissingPolicies bool
	WriteRequest
}

// ACLRolesUpsertResponse answers ACL.UpsertRoles with the stored roles.
type ACLRolesUpsertResponse struct {
	ACLRoles []*ACLRole
	WriteMeta
}

// ACLRolesDeleteByIDRequest deletes roles by ID (ACL.DeleteRoles).
type ACLRolesDeleteByIDRequest struct {
	ACLRoleIDs []string
	WriteRequest
}

// ACLRolesListRequest lists roles (ACL.ListRoles).
type ACLRolesListRequest struct {
	QueryOptions
}

// ACLRolesListResponse answers ACL.ListRoles.
type ACLRolesListResponse struct {
	ACLRoles []*ACLRoleListStub
	QueryMeta
}

// ACLRoleSpecificRequest reads one role by ID or, when RoleID is empty, by
// RoleName (ACL.GetRole).
type ACLRoleSpecificRequest struct {
	RoleID   string
	RoleName string
	QueryOptions
}

// SingleACLRoleResponse answers ACL.GetRole; ACLRole is nil when not found.
type SingleACLRoleResponse struct {
	ACLRole *ACLRole
	QueryMeta
}

// ACL RPC methods.
const (
	ACLBootstrapRPC        = "ACL.Bootstrap"
	ACLUpsertPoliciesRPC   = "ACL.UpsertPolicies"
	ACLDeletePoliciesRPC   = "ACL.DeletePolicies"
	ACLListPoliciesRPC     = "ACL.ListPolicies"
	ACLGetPolicyRPC        = "ACL.GetPolicy"
	ACLUpsertTokensRPC     = "ACL.UpsertTokens"
	ACLDeleteTokensRPC     = "ACL.DeleteTokens"
	ACLListTokensRPC       = "ACL.ListTokens"
	ACLGetTokenRPC         = "ACL.GetToken"
	ACLGetTokenBySecretRPC = "ACL.GetTokenBySecret"
	ACLUpsertRolesRPC      = "ACL.UpsertRoles"
	ACLDeleteRolesRPC      = "ACL.DeleteRoles"
	ACLListRolesRPC        = "ACL.ListRoles"
	ACLGetRoleRPC          = "ACL.GetRole"
)

// ACLAllowAllocRequest asks whether the token may use Capability on an
// allocation's client endpoint (ACL.AllowAllocOperation); Task narrows an
// exec to one task.
type ACLAllowAllocRequest struct {
	AllocID    string
	Task       string
	Capability string
	QueryOptions
}

// ACLAllowAllocOperationRPC is the method of ACLAllowAllocRequest.
const ACLAllowAllocOperationRPC = "ACL.AllowAllocOperation"

// ACLAuthorizeRequest asks whether the request's token meets an HTTP
// route's need (ACL.Authorize): Kind "namespace" (Capability in
// Namespace), "node", "agent" or "operator" (Capability "read" or
// "write"), or "management".
type ACLAuthorizeRequest struct {
	Kind       string
	Capability string
	QueryOptions
}

// ACLAuthorizeRPC is the method of ACLAuthorizeRequest.
const ACLAuthorizeRPC = "ACL.Authorize"
