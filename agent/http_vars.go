package agent

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// varsRoutes registers Nomad's variables and root keyring API.
func (s *httpServer) varsRoutes(h func(string, handlerFunc)) {
	h("GET /v1/vars", s.varsList)
	h("GET /v1/var/{path...}", s.varGet)
	h("DELETE /v1/var/{path...}", s.varDelete)
	h("GET /v1/operator/keyring/keys", s.keyringList)
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/var/{path...}", s.varPut)
		h(m+" /v1/operator/keyring/rotate", s.keyringRotate)
	}
}

// varsList serves GET /v1/vars (?prefix=, ?namespace=, "*" for all):
// []VariableMetadata.
func (s *httpServer) varsList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.VariablesListRequest{QueryOptions: q}
	var reply structs.VariablesListResponse
	if err := s.RPC.RPC(structs.VariablesListRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Data, nil
}

// varPath is the request's variable path; a bad one is a 400 before any
// RPC.
func varPath(r *http.Request) (string, error) {
	p := r.PathValue("path")
	if err := structs.ValidateVariablePath(p); err != nil {
		return "", badRequest("%v", err)
	}
	return p, nil
}

// varGet serves GET /v1/var/:path: the variable with its items; 404
// "variable not found" when absent.
func (s *httpServer) varGet(w http.ResponseWriter, r *http.Request) (any, error) {
	path, err := varPath(r)
	if err != nil {
		return nil, err
	}
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.VariablesReadRequest{Path: path, QueryOptions: q}
	var reply structs.VariablesReadResponse
	if err := s.RPC.RPC(structs.VariablesReadRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Data == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "variable not found")
	}
	return reply.Data, nil
}

// varOp is the operation a PUT's query asks for: ?cas=<index> (check-and-
// set, 0: must not exist), ?lock-acquire, ?lock-renew, ?lock-release, or a
// plain set.
func varOp(r *http.Request, v *structs.VariableDecrypted) (structs.VarOp, error) {
	q := r.URL.Query()
	ops := 0
	op := structs.VarOpSet
	for _, o := range []structs.VarOp{structs.VarOpLockAcquire, structs.VarOpLockRenew, structs.VarOpLockRelease} {
		if q.Has(string(o)) {
			ops++
			op = o
		}
	}
	if q.Has("cas") {
		ops++
		idx, err := strconv.ParseUint(q.Get("cas"), 10, 64)
		if err != nil {
			return "", badRequest("invalid cas index %q: %v", q.Get("cas"), err)
		}
		op, v.ModifyIndex = structs.VarOpCAS, idx
	}
	if ops > 1 {
		return "", badRequest("only one of cas, lock-acquire, lock-renew and lock-release may be given")
	}
	return op, nil
}

// varPut serves PUT /v1/var/:path with a Variable body: 200 with the
// written variable, 409 with the current one on a CAS or lock conflict
// (lock-renew answers the VariableMetadata).
func (s *httpServer) varPut(w http.ResponseWriter, r *http.Request) (any, error) {
	path, err := varPath(r)
	if err != nil {
		return nil, err
	}
	var v structs.VariableDecrypted
	if err := decodeBody(r, &v); err != nil {
		return nil, err
	}
	if v.Path == "" {
		v.Path = path
	} else if strings.Trim(v.Path, "/ ") != path {
		return nil, badRequest("variable path in the URL %q does not match the body's %q", path, v.Path)
	}
	op, err := varOp(r, &v)
	if err != nil {
		return nil, err
	}
	wr := s.parseWrite(r)
	if v.Namespace == "" {
		v.Namespace = wr.Namespace
	}
	args := structs.VariablesApplyRequest{Op: op, Var: &v, WriteRequest: wr}
	var reply structs.VariablesApplyResponse
	if err := s.RPC.RPC(structs.VariablesApplyRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	if reply.IsConflict() {
		return conflictBody(reply.Conflict, path, v.Namespace), nil
	}
	if op == structs.VarOpLockRenew && reply.Output != nil {
		return &reply.Output.VariableMetadata, nil
	}
	return reply.Output, nil
}

// conflictBody is a 409 answer: the current variable (an empty one at
// path when absent), as Nomad's.
func conflictBody(cur *structs.VariableDecrypted, path, ns string) withStatus {
	if cur == nil {
		cur = &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Namespace: ns, Path: path}}
	}
	return withStatus{Code: http.StatusConflict, Body: cur}
}

// varDelete serves DELETE /v1/var/:path (?cas=<index>): 200 with no body,
// 409 with the current variable on a CAS or lock conflict.
func (s *httpServer) varDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	path, err := varPath(r)
	if err != nil {
		return nil, err
	}
	wr := s.parseWrite(r)
	v := structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Namespace: wr.Namespace, Path: path}}
	op := structs.VarOpDelete
	if q := r.URL.Query(); q.Has("cas") {
		idx, err := strconv.ParseUint(q.Get("cas"), 10, 64)
		if err != nil {
			return nil, badRequest("invalid cas index %q: %v", q.Get("cas"), err)
		}
		op, v.ModifyIndex = structs.VarOpDeleteCAS, idx
	}
	args := structs.VariablesApplyRequest{Op: op, Var: &v, WriteRequest: wr}
	var reply structs.VariablesApplyResponse
	if err := s.RPC.RPC(structs.VariablesApplyRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	if reply.IsConflict() {
		return conflictBody(reply.Conflict, path, wr.Namespace), nil
	}
	return nil, nil
}

// keyringList serves GET /v1/operator/keyring/keys: []RootKeyMeta.
func (s *httpServer) keyringList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.KeyringListRequest{QueryOptions: q}
	var reply structs.KeyringListResponse
	if err := s.RPC.RPC(structs.KeyringListRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Keys, nil
}

// keyringRotate serves PUT /v1/operator/keyring/rotate (?full=true):
// {"Key": RootKeyMeta}.
func (s *httpServer) keyringRotate(w http.ResponseWriter, r *http.Request) (any, error) {
	full := false
	if f := r.URL.Query().Get("full"); f != "" {
		var err error
		if full, err = strconv.ParseBool(f); err != nil {
			return nil, badRequest("invalid full %q: %v", f, err)
		}
	}
	if a := r.URL.Query().Get("algo"); a != "" && a != structs.EncryptionAlgorithmAES256GCM {
		return nil, badRequest("unsupported algorithm %q: only %s", a, structs.EncryptionAlgorithmAES256GCM)
	}
	args := structs.KeyringRotateRequest{Full: full, WriteRequest: s.parseWrite(r)}
	var reply structs.KeyringRotateResponse
	if err := s.RPC.RPC(structs.KeyringRotateRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return struct{ Key *structs.RootKeyMeta }{reply.Key}, nil
}
