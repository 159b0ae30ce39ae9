package cli

import (
	"net/http"
	"net/url"

	"github.com/nomadish/nomadish/structs"
)

// The /v1/acl calls the acl commands make.

func (c *apiClient) aclBootstrap(secret string) (*structs.ACLToken, error) {
	var body any
	if secret != "" {
		body = map[string]string{"BootstrapSecret": secret}
	}
	var out structs.ACLToken
	_, err := c.do(http.MethodPut, "/v1/acl/bootstrap", nil, body, &out)
	return &out, err
}

func (c *apiClient) aclPolicyUpsert(p *structs.ACLPolicy) error {
	_, err := c.do(http.MethodPut, "/v1/acl/policy/"+esc(p.Name), nil, p, nil)
	return err
}

func (c *apiClient) aclPolicyDelete(name string) error {
	_, err := c.do(http.MethodDelete, "/v1/acl/policy/"+esc(name), nil, nil, nil)
	return err
}

func (c *apiClient) aclPolicy(name string) (*structs.ACLPolicy, error) {
	var out structs.ACLPolicy
	_, err := c.get("/v1/acl/policy/"+esc(name), nil, &out)
	return &out, err
}

func (c *apiClient) aclPolicies(path string) ([]*structs.ACLPolicyListStub, error) {
	var out []*structs.ACLPolicyListStub
	_, err := c.get(path, nil, &out)
	return out, err
}

func (c *apiClient) aclTokenUpsert(t *structs.ACLToken) (*structs.ACLToken, error) {
	path := "/v1/acl/token"
	if t.AccessorID != "" {
		path += "/" + esc(t.AccessorID)
	}
	var out structs.ACLToken
	_, err := c.do(http.MethodPut, path, nil, t, &out)
	return &out, err
}

func (c *apiClient) aclTokenDelete(accessor string) error {
	_, err := c.do(http.MethodDelete, "/v1/acl/token/"+esc(accessor), nil, nil, nil)
	return err
}

// aclToken reads a token by accessor, or the caller's own for "self".
func (c *apiClient) aclToken(accessor string) (*structs.ACLToken, error) {
	var out structs.ACLToken
	_, err := c.get("/v1/acl/token/"+esc(accessor), nil, &out)
	return &out, err
}

func (c *apiClient) aclTokens() ([]*structs.ACLTokenListStub, error) {
	var out []*structs.ACLTokenListStub
	_, err := c.get("/v1/acl/tokens", nil, &out)
	return out, err
}

func (c *apiClient) aclRoleUpsert(r *structs.ACLRole) (*structs.ACLRole, error) {
	path := "/v1/acl/role"
	if r.ID != "" {
		path += "/" + esc(r.ID)
	}
	var out structs.ACLRole
	_, err := c.do(http.MethodPut, path, nil, r, &out)
	return &out, err
}

func (c *apiClient) aclRoleDelete(id string) error {
	_, err := c.do(http.MethodDelete, "/v1/acl/role/"+esc(id), nil, nil, nil)
	return err
}

// aclRole reads a role by ID, or by name when byName.
func (c *apiClient) aclRole(key string, byName bool) (*structs.ACLRole, error) {
	path := "/v1/acl/role/" + esc(key)
	if byName {
		path = "/v1/acl/role/name/" + esc(key)
	}
	var out structs.ACLRole
	_, err := c.get(path, url.Values{}, &out)
	return &out, err
}

func (c *apiClient) aclRoles() ([]*structs.ACLRoleListStub, error) {
	var out []*structs.ACLRoleListStub
	_, err := c.get("/v1/acl/roles", nil, &out)
	return out, err
}
