package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

func (s *httpServer) aclRolesList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	var reply structs.ACLRolesListResponse
	if err := s.RPC.RPC(structs.ACLListRolesRPC, &structs.ACLRolesListRequest{QueryOptions: q}, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.ACLRoles, nil
}

func (s *httpServer) aclRoleGet(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.aclRoleRead(w, r, structs.ACLRoleSpecificRequest{RoleID: r.PathValue("id")})
}

func (s *httpServer) aclRoleGetByName(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.aclRoleRead(w, r, structs.ACLRoleSpecificRequest{RoleName: r.PathValue("name")})
}

func (s *httpServer) aclRoleRead(w http.ResponseWriter, r *http.Request, args structs.ACLRoleSpecificRequest) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args.QueryOptions = q
	var reply structs.SingleACLRoleResponse
	if err := s.RPC.RPC(structs.ACLGetRoleRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.ACLRole == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "ACL role not found")
	}
	return reply.ACLRole, nil
}

// aclRoleCreate serves PUT /v1/acl/role: a new role (no ID).
func (s *httpServer) aclRoleCreate(w http.ResponseWriter, r *http.Request) (any, error) {
	var role structs.ACLRole
	if err := decodeBody(r, &role); err != nil {
		return nil, err
	}
	if role.ID != "" {
		return nil, badRequest("ACL role ID must not be set on create; use PUT /v1/acl/role/<id> to update")
	}
	return s.aclRoleUpsert(w, r, &role)
}

// aclRoleUpdate serves PUT /v1/acl/role/{id}.
func (s *httpServer) aclRoleUpdate(w http.ResponseWriter, r *http.Request) (any, error) {
	var role structs.ACLRole
	if err := decodeBody(r, &role); err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	if role.ID == "" {
		role.ID = id
	}
	if role.ID != id {
		return nil, badRequest("ACL role ID does not match request path")
	}
	return s.aclRoleUpsert(w, r, &role)
}

func (s *httpServer) aclRoleUpsert(w http.ResponseWriter, r *http.Request, role *structs.ACLRole) (any, error) {
	args := structs.ACLRolesUpsertRequest{ACLRoles: []*structs.ACLRole{role}, WriteRequest: s.parseWrite(r)}
	var reply structs.ACLRolesUpsertResponse
	if err := s.RPC.RPC(structs.ACLUpsertRolesRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	if len(reply.ACLRoles) == 0 {
		return nil, nil
	}
	return reply.ACLRoles[0], nil
}

func (s *httpServer) aclRoleDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.ACLRolesDeleteByIDRequest{ACLRoleIDs: []string{r.PathValue("id")}, WriteRequest: s.parseWrite(r)}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(structs.ACLDeleteRolesRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
