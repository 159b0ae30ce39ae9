package agent

import (
	"net/http"
	"slices"

	"github.com/nomadish/nomadish/structs"
)

// servicesRoutes registers Nomad's native service discovery API; the
// ServiceRegistration RPCs check the token (read-job to read, submit-job
// to delete; http_acl_routes.go marks them self-checked).
func (s *httpServer) servicesRoutes(h func(string, handlerFunc)) {
	h("GET /v1/services", s.servicesList)
	h("GET /v1/service/{name}", s.serviceGet)
	h("DELETE /v1/service/{name}/{id}", s.serviceDelete)
}

// servicesList serves GET /v1/services (?namespace=, "*" for every one the
// token may read): []ServiceRegistrationListStub, one per namespace.
func (s *httpServer) servicesList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.ServiceRegistrationListRequest{QueryOptions: q}
	var reply structs.ServiceRegistrationListResponse
	if err := s.RPC.RPC(structs.ServiceRegistrationListRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Services == nil {
		reply.Services = []*structs.ServiceRegistrationListStub{}
	}
	return reply.Services, nil
}

// serviceGet serves GET /v1/service/:name (?tag= keeps the registrations
// carrying that tag, ?choose=<n>|<key> picks n by rendezvous hashing;
// index/wait block): []ServiceRegistration, [] when there is none.
func (s *httpServer) serviceGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.ServiceRegistrationByNameRequest{ServiceName: r.PathValue("name"), Choose: r.URL.Query().Get("choose"), QueryOptions: q}
	var reply structs.ServiceRegistrationByNameResponse
	if err := s.RPC.RPC(structs.ServiceRegistrationGetServiceRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	out := make([]*structs.ServiceRegistration, 0, len(reply.Services))
	tag := r.URL.Query().Get("tag")
	for _, reg := range reply.Services {
		if tag == "" || slices.Contains(reg.Tags, tag) {
			out = append(out, reg)
		}
	}
	return out, nil
}

// serviceDelete serves DELETE /v1/service/:name/:id (?namespace=): 404
// when the namespace holds no registration id.
func (s *httpServer) serviceDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.ServiceRegistrationDelByIDRequest{ID: r.PathValue("id"), WriteRequest: s.parseWrite(r)}
	var reply structs.ServiceRegistrationDelResponse
	if err := s.RPC.RPC(structs.ServiceRegistrationDeleteByIDRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
