package agent

import (
	"errors"
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// aclRoutes registers Nomad's /v1/acl API (http.go calls it).
func (s *httpServer) aclRoutes(h func(string, handlerFunc)) {
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/acl/bootstrap", s.aclBootstrap)
		h(m+" /v1/acl/policy/{name}", s.aclPolicyUpsert)
		h(m+" /v1/acl/token", s.aclTokenCreate)
		h(m+" /v1/acl/token/{accessor}", s.aclTokenUpdate)
		h(m+" /v1/acl/role", s.aclRoleCreate)
		h(m+" /v1/acl/role/{id}", s.aclRoleUpdate)
	}
	h("GET /v1/acl/policies", s.aclPoliciesList)
	h("GET /v1/acl/policy/self", s.aclPoliciesList)
	h("GET /v1/acl/policy/{name}", s.aclPolicyGet)
	h("DELETE /v1/acl/policy/{name}", s.aclPolicyDelete)
	h("GET /v1/acl/tokens", s.aclTokensList)
	h("GET /v1/acl/token/self", s.aclTokenSelf)
	h("GET /v1/acl/token/{accessor}", s.aclTokenGet)
	h("DELETE /v1/acl/token/{accessor}", s.aclTokenDelete)
	h("GET /v1/acl/roles", s.aclRolesList)
	h("GET /v1/acl/role/{id}", s.aclRoleGet)
	h("GET /v1/acl/role/name/{name}", s.aclRoleGetByName)
	h("DELETE /v1/acl/role/{id}", s.aclRoleDelete)
}

// aclBootstrap serves PUT /v1/acl/bootstrap, with an optional
// {"BootstrapSecret": "<uuid>"} body; answers the management token.
func (s *httpServer) aclBootstrap(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.ACLTokenBootstrapRequest{WriteRequest: s.parseWrite(r)}
	if err := decodeOptionalBody(r, &args); err != nil {
		return nil, err
	}
	var reply structs.ACLTokenUpsertResponse
	if err := s.RPC.RPC(structs.ACLBootstrapRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	if len(reply.Tokens) == 0 {
		return nil, nil
	}
	return reply.Tokens[0], nil
}

// decodeOptionalBody is decodeBody that accepts an empty body.
func decodeOptionalBody(r *http.Request, out any) error {
	if r.ContentLength == 0 {
		return nil
	}
	err := decodeBody(r, out)
	var ce *structs.CodedError
	if errors.As(err, &ce) && ce.Message == "request body is empty" {
		return nil
	}
	return err
}

func (s *httpServer) aclPoliciesList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	var reply structs.ACLPolicyListResponse
	if err := s.RPC.RPC(structs.ACLListPoliciesRPC, &structs.ACLPolicyListRequest{QueryOptions: q}, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Policies, nil
}

func (s *httpServer) aclPolicyGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	var reply structs.SingleACLPolicyResponse
	args := structs.ACLPolicySpecificRequest{Name: r.PathValue("name"), QueryOptions: q}
	if err := s.RPC.RPC(structs.ACLGetPolicyRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Policy == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "ACL policy not found")
	}
	return reply.Policy, nil
}

// aclPolicyUpsert serves PUT /v1/acl/policy/{name} with an ACLPolicy body
// whose Name, when set, must be the path's.
func (s *httpServer) aclPolicyUpsert(w http.ResponseWriter, r *http.Request) (any, error) {
	var p structs.ACLPolicy
	if err := decodeBody(r, &p); err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	if p.Name == "" {
		p.Name = name
	}
	if p.Name != name {
		return nil, badRequest("Policy name does not match request path")
	}
	args := structs.ACLPolicyUpsertRequest{Policies: []*structs.ACLPolicy{&p}, WriteRequest: s.parseWrite(r)}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(structs.ACLUpsertPoliciesRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

func (s *httpServer) aclPolicyDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.ACLPolicyDeleteRequest{Names: []string{r.PathValue("name")}, WriteRequest: s.parseWrite(r)}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(structs.ACLDeletePoliciesRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
