package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

func (s *httpServer) aclTokensList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	var reply structs.ACLTokenListResponse
	if err := s.RPC.RPC(structs.ACLListTokensRPC, &structs.ACLTokenListRequest{QueryOptions: q}, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Tokens, nil
}

// aclTokenSelf serves GET /v1/acl/token/self: the caller's own token.
func (s *httpServer) aclTokenSelf(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	var reply structs.SingleACLTokenResponse
	args := structs.ResolveACLTokenRequest{SecretID: q.AuthToken, QueryOptions: q}
	if err := s.RPC.RPC(structs.ACLGetTokenBySecretRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Token, nil
}

func (s *httpServer) aclTokenGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	var reply structs.SingleACLTokenResponse
	args := structs.ACLTokenSpecificRequest{AccessorID: r.PathValue("accessor"), QueryOptions: q}
	if err := s.RPC.RPC(structs.ACLGetTokenRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Token == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "ACL token not found")
	}
	return reply.Token, nil
}

// aclTokenCreate serves PUT /v1/acl/token: a new token (no AccessorID).
func (s *httpServer) aclTokenCreate(w http.ResponseWriter, r *http.Request) (any, error) {
	var t structs.ACLToken
	if err := decodeBody(r, &t); err != nil {
		return nil, err
	}
	if t.AccessorID != "" {
		return nil, badRequest("Token AccessorID must not be set on create; use PUT /v1/acl/token/<accessor> to update")
	}
	return s.aclTokenUpsert(w, r, &t)
}

// aclTokenUpdate serves PUT /v1/acl/token/{accessor}.
func (s *httpServer) aclTokenUpdate(w http.ResponseWriter, r *http.Request) (any, error) {
	var t structs.ACLToken
	if err := decodeBody(r, &t); err != nil {
		return nil, err
	}
	accessor := r.PathValue("accessor")
	if t.AccessorID == "" {
		t.AccessorID = accessor
	}
	if t.AccessorID != accessor {
		return nil, badRequest("Token AccessorID does not match request path")
	}
	return s.aclTokenUpsert(w, r, &t)
}

func (s *httpServer) aclTokenUpsert(w http.ResponseWriter, r *http.Request, t *structs.ACLToken) (any, error) {
	args := structs.ACLTokenUpsertRequest{Tokens: []*structs.ACLToken{t}, WriteRequest: s.parseWrite(r)}
	var reply structs.ACLTokenUpsertResponse
	if err := s.RPC.RPC(structs.ACLUpsertTokensRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	if len(reply.Tokens) == 0 {
		return nil, nil
	}
	return reply.Tokens[0], nil
}

func (s *httpServer) aclTokenDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.ACLTokenDeleteRequest{AccessorIDs: []string{r.PathValue("accessor")}, WriteRequest: s.parseWrite(r)}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(structs.ACLDeleteTokensRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
