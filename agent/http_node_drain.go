package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// nodeDrainBody is the body of POST /v1/node/:id/drain (Nomad's shape).
// DrainSpec nil cancels the drain.
type nodeDrainBody struct {
	NodeID       string
	DrainSpec    *structs.DrainSpec
	MarkEligible bool
	Meta         map[string]string
}

// nodeEligibilityBody is the body of POST /v1/node/:id/eligibility.
type nodeEligibilityBody struct {
	NodeID      string
	Eligibility string
}

// nodeUpdateReply answers both (Nomad's NodeDrainUpdateResponse and
// NodeEligibilityUpdateResponse).
type nodeUpdateReply struct {
	NodeModifyIndex uint64
	EvalIDs         []string
	EvalCreateIndex uint64
	Index           uint64
}

// nodeDrain serves PUT|POST /v1/node/:id/drain: start, change or cancel a
// drain.
func (s *httpServer) nodeDrain(w http.ResponseWriter, r *http.Request) (any, error) {
	var body nodeDrainBody
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	args := structs.NodeUpdateDrainRequest{NodeID: r.PathValue("id"), MarkEligible: body.MarkEligible,
		Meta: body.Meta, WriteRequest: s.parseWrite(r)}
	if body.DrainSpec != nil {
		args.DrainStrategy = &structs.DrainStrategy{DrainSpec: *body.DrainSpec}
	}
	var reply structs.NodeDrainUpdateResponse
	if err := s.RPC.RPC(structs.NodeUpdateDrainRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nodeUpdateReply{reply.NodeModifyIndex, reply.EvalIDs, reply.EvalCreateIndex, reply.Index}, nil
}

// nodeEligibility serves PUT|POST /v1/node/:id/eligibility.
func (s *httpServer) nodeEligibility(w http.ResponseWriter, r *http.Request) (any, error) {
	var body nodeEligibilityBody
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	args := structs.NodeUpdateEligibilityRequest{NodeID: r.PathValue("id"), Eligibility: body.Eligibility,
		WriteRequest: s.parseWrite(r)}
	var reply structs.NodeDrainUpdateResponse
	if err := s.RPC.RPC(structs.NodeUpdateEligibilityRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nodeUpdateReply{reply.NodeModifyIndex, reply.EvalIDs, reply.EvalCreateIndex, reply.Index}, nil
}

// nodeAllocations serves GET /v1/node/:id/allocations: the node's
// allocations, in full (Nomad's shape).
func (s *httpServer) nodeAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	// Every namespace's allocations on the node, as Nomad: with ACLs on,
	// those in namespaces the token may read.
	q.Namespace = "*"
	args := structs.AllocListRequest{QueryOptions: unpaged(q)} // the node's, not a page of all
	var list structs.AllocListResponse
	if err := s.RPC.RPC(structs.AllocListRPC, &args, &list); err != nil {
		return nil, err
	}
	var ids []string
	for _, a := range list.Allocations {
		if a.NodeID == id {
			ids = append(ids, a.ID)
		}
	}
	setMeta(w, &list.QueryMeta)
	if len(ids) == 0 {
		return []*structs.Allocation{}, nil
	}
	get := structs.AllocsGetRequest{AllocIDs: ids, QueryOptions: structs.QueryOptions{Region: q.Region, AllowStale: q.AllowStale, AuthToken: q.AuthToken}}
	var reply structs.AllocsGetResponse
	if err := s.RPC.RPC(structs.AllocGetAllocsRPC, &get, &reply); err != nil {
		return nil, err
	}
	return reply.Allocs, nil
}
