package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// namespaceRoutes registers Nomad's namespace API.
func (s *httpServer) namespaceRoutes(h func(string, handlerFunc)) {
	h("GET /v1/namespaces", s.namespacesList)
	h("GET /v1/namespace/{name}", s.namespaceGet)
	h("DELETE /v1/namespace/{name}", s.namespaceDelete)
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/namespace", s.namespaceUpsert)
		h(m+" /v1/namespace/{name}", s.namespaceUpsert)
	}
}

// namespacesList serves GET /v1/namespaces (?prefix=): []Namespace.
func (s *httpServer) namespacesList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.NamespaceListRequest{QueryOptions: q}
	var reply structs.NamespaceListResponse
	if err := s.RPC.RPC(structs.NamespaceListRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Namespaces, nil
}

// namespaceGet serves GET /v1/namespace/:name: the Namespace, 404 when
// absent.
func (s *httpServer) namespaceGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.NamespaceSpecificRequest{Name: r.PathValue("name"), QueryOptions: q}
	var reply structs.SingleNamespaceResponse
	if err := s.RPC.RPC(structs.NamespaceGetRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Namespace == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "namespace not found")
	}
	return reply.Namespace, nil
}

// namespaceUpsert serves PUT|POST /v1/namespace[/:name] with a Namespace
// body; a name in the path must match the body's (an empty body name takes
// the path's).
func (s *httpServer) namespaceUpsert(w http.ResponseWriter, r *http.Request) (any, error) {
	var ns structs.Namespace
	if err := decodeBody(r, &ns); err != nil {
		return nil, err
	}
	if name := r.PathValue("name"); name != "" {
		if ns.Name == "" {
			ns.Name = name
		} else if ns.Name != name {
			return nil, badRequest("Namespace name in path %q does not match the body's %q", name, ns.Name)
		}
	}
	args := structs.NamespaceUpsertRequest{Namespaces: []*structs.Namespace{&ns}, WriteRequest: s.parseWrite(r)}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(structs.NamespaceUpsertRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

// namespaceDelete serves DELETE /v1/namespace/:name.
func (s *httpServer) namespaceDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.NamespaceDeleteRequest{Namespaces: []string{r.PathValue("name")}, WriteRequest: s.parseWrite(r)}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(structs.NamespaceDeleteRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
