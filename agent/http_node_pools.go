package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// nodePoolRoutes registers Nomad's node pool API. GET /v1/node/pool/{name}
// and GET /v1/node/{id}/allocations both match /v1/node/pool/allocations,
// which Go's mux refuses; so the node's sub-resources are served through
// nodeSubresource, and the pool route wins as the more specific one.
func (s *httpServer) nodePoolRoutes(h func(string, handlerFunc)) {
	h("GET /v1/node/pools", s.nodePoolsList)
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/node/pools", s.nodePoolUpsert)
	}
	h("GET /v1/node/pool/{name}", s.nodePoolGet)
	h("DELETE /v1/node/pool/{name}", s.nodePoolDelete)
	h("GET /v1/node/pool/{name}/jobs", s.nodePoolJobs)
	h("GET /v1/node/pool/{name}/nodes", s.nodePoolNodes)
}

// nodeSubresource serves GET /v1/node/:id/:sub: "allocations"; the write-only
// "drain" and "eligibility" answer 405 with their Allow header, as the mux
// did before this route covered them; anything else is a 404.
func (s *httpServer) nodeSubresource(w http.ResponseWriter, r *http.Request) (any, error) {
	switch r.PathValue("sub") {
	case "allocations":
		return s.nodeAllocations(w, r)
	case "drain", "eligibility":
		w.Header().Set("Allow", "POST, PUT")
		return nil, structs.NewCodedError(http.StatusMethodNotAllowed, "Method Not Allowed")
	}
	return nil, structs.NewCodedError(structs.ErrCodeNotFound, "Invalid URL path %q", r.URL.Path)
}

// nodePoolsList serves GET /v1/node/pools (?prefix=): []NodePool.
func (s *httpServer) nodePoolsList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.NodePoolListRequest{QueryOptions: q}
	var reply structs.NodePoolListResponse
	if err := s.RPC.RPC(structs.NodePoolListRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.NodePools, nil
}

// nodePoolGet serves GET /v1/node/pool/:name: the NodePool, 404 when absent.
func (s *httpServer) nodePoolGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.NodePoolSpecificRequest{Name: r.PathValue("name"), QueryOptions: q}
	var reply structs.SingleNodePoolResponse
	if err := s.RPC.RPC(structs.NodePoolGetRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.NodePool == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "node pool not found")
	}
	return reply.NodePool, nil
}

// nodePoolUpsert serves PUT|POST /v1/node/pools with a NodePool body.
func (s *httpServer) nodePoolUpsert(w http.ResponseWriter, r *http.Request) (any, error) {
	var p structs.NodePool
	if err := decodeBody(r, &p); err != nil {
		return nil, err
	}
	args := structs.NodePoolUpsertRequest{NodePools: []*structs.NodePool{&p}, WriteRequest: s.parseWrite(r)}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(structs.NodePoolUpsertRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

// nodePoolDelete serves DELETE /v1/node/pool/:name.
func (s *httpServer) nodePoolDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.NodePoolDeleteRequest{Names: []string{r.PathValue("name")}, WriteRequest: s.parseWrite(r)}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(structs.NodePoolDeleteRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

// nodePoolJobs serves GET /v1/node/pool/:name/jobs (?namespace=, "*" for
// all): []JobListStub.
func (s *httpServer) nodePoolJobs(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.NodePoolSpecificRequest{Name: r.PathValue("name"), QueryOptions: q}
	var reply structs.NodePoolJobsResponse
	if err := s.RPC.RPC(structs.NodePoolListJobsRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Jobs, nil
}

// nodePoolNodes serves GET /v1/node/pool/:name/nodes: []NodeListStub.
func (s *httpServer) nodePoolNodes(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.NodePoolSpecificRequest{Name: r.PathValue("name"), QueryOptions: q}
	var reply structs.NodePoolNodesResponse
	if err := s.RPC.RPC(structs.NodePoolListNodesRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Nodes, nil
}
