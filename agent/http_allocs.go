package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// uuidLen is the length of a full ID; a shorter one may be a prefix.
const uuidLen = 36

// allocsList serves GET /v1/allocations (?prefix=, ?resources=true adds
// each row's AllocatedResources, as Nomad's).
func (s *httpServer) allocsList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	res, err := parseBool(r, "resources")
	if err != nil {
		return nil, err
	}
	reply, err := s.listAllocsFields(q, &structs.AllocStubFields{Resources: res})
	if err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Allocations, nil
}

func (s *httpServer) listAllocs(q structs.QueryOptions) (*structs.AllocListResponse, error) {
	return s.listAllocsFields(q, nil)
}

func (s *httpServer) listAllocsFields(q structs.QueryOptions, fields *structs.AllocStubFields) (*structs.AllocListResponse, error) {
	args := structs.AllocListRequest{QueryOptions: q, Fields: fields}
	var reply structs.AllocListResponse
	if err := s.RPC.RPC(structs.AllocListRPC, &args, &reply); err != nil {
		return nil, err
	}
	if reply.Allocations == nil {
		reply.Allocations = []*structs.AllocListStub{}
	}
	return &reply, nil
}

// allocGet serves GET /v1/allocation/:id. Extension: an ID shorter than a
// UUID that matches exactly one allocation by prefix finds that allocation.
func (s *httpServer) allocGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	alloc, meta, err := s.getAlloc(r.PathValue("id"), q)
	if err != nil {
		return nil, err
	}
	if alloc == nil {
		alloc, meta, err = s.getAllocByPrefix(r.PathValue("id"), q)
		if err != nil {
			return nil, err
		}
	}
	setMeta(w, meta)
	return alloc, nil
}

// getAlloc reads one allocation; nil when absent.
func (s *httpServer) getAlloc(id string, q structs.QueryOptions) (*structs.Allocation, *structs.QueryMeta, error) {
	args := structs.AllocSpecificRequest{AllocID: id, QueryOptions: q}
	var reply structs.SingleAllocResponse
	if err := s.RPC.RPC(structs.AllocGetAllocRPC, &args, &reply); err != nil {
		return nil, nil, err
	}
	return reply.Alloc, &reply.QueryMeta, nil
}

// getAllocByPrefix finds the one allocation whose ID starts with prefix.
func (s *httpServer) getAllocByPrefix(prefix string, q structs.QueryOptions) (*structs.Allocation, *structs.QueryMeta, error) {
	full, err := resolvePrefix("allocation", prefix, func(p string) ([]string, error) {
		lq := structs.QueryOptions{Region: q.Region, Namespace: q.Namespace, AllowStale: q.AllowStale, Prefix: p, AuthToken: q.AuthToken}
		reply, err := s.listAllocs(lq)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(reply.Allocations))
		for i, a := range reply.Allocations {
			ids[i] = a.ID
		}
		return ids, nil
	})
	if err != nil {
		return nil, nil, err
	}
	q.MinQueryIndex = 0
	alloc, meta, err := s.getAlloc(full, q)
	if err == nil && alloc == nil {
		err = structs.ErrAllocNotFound
	}
	return alloc, meta, err
}

// resolvePrefix returns the one full ID that list(prefix) finds: 404 when
// the ID is a full UUID or nothing matches, 400 when several match.
func resolvePrefix(kind, prefix string, list func(prefix string) ([]string, error)) (string, error) {
	notFound := structs.NewCodedError(structs.ErrCodeNotFound, "%s not found", kind)
	if prefix == "" || len(prefix) >= uuidLen {
		return "", notFound
	}
	ids, err := list(prefix)
	if err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", notFound
	case 1:
		return ids[0], nil
	default:
		return "", badRequest("ID prefix %q matches %d %ss", prefix, len(ids), kind)
	}
}
