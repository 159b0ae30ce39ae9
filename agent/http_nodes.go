package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// nodesList serves GET /v1/nodes (?prefix=, ?resources=true adds each
// node's NodeResources and ReservedResources, as Nomad's). List rows carry
// no SecretID.
func (s *httpServer) nodesList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	res, err := parseBool(r, "resources")
	if err != nil {
		return nil, err
	}
	reply, err := s.listNodesFields(q, &structs.NodeStubFields{Resources: res})
	if err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Nodes, nil
}

func (s *httpServer) listNodes(q structs.QueryOptions) (*structs.NodeListResponse, error) {
	return s.listNodesFields(q, nil)
}

func (s *httpServer) listNodesFields(q structs.QueryOptions, fields *structs.NodeStubFields) (*structs.NodeListResponse, error) {
	args := structs.NodeListRequest{QueryOptions: q, Fields: fields}
	var reply structs.NodeListResponse
	if err := s.RPC.RPC(structs.NodeListRPC, &args, &reply); err != nil {
		return nil, err
	}
	if reply.Nodes == nil {
		reply.Nodes = []*structs.NodeListStub{}
	}
	return &reply, nil
}

// nodeGet serves GET /v1/node/:id (or an unambiguous ID prefix). The node's
// SecretID is never sent: it authenticates the client to the servers.
func (s *httpServer) nodeGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	node, meta, err := s.getNode(id, q)
	if err != nil {
		return nil, err
	}
	if node == nil {
		full, err := resolvePrefix("node", id, func(p string) ([]string, error) {
			reply, err := s.listNodes(structs.QueryOptions{Region: q.Region, AllowStale: q.AllowStale, Prefix: p, AuthToken: q.AuthToken})
			if err != nil {
				return nil, err
			}
			ids := make([]string, len(reply.Nodes))
			for i, n := range reply.Nodes {
				ids[i] = n.ID
			}
			return ids, nil
		})
		if err != nil {
			return nil, err
		}
		q.MinQueryIndex = 0
		if node, meta, err = s.getNode(full, q); err != nil {
			return nil, err
		}
		if node == nil {
			return nil, structs.ErrNodeNotFound
		}
	}
	setMeta(w, meta)
	out := *node // shallow copy: the reply may share the state store's node
	out.SecretID = ""
	return &out, nil
}

func (s *httpServer) getNode(id string, q structs.QueryOptions) (*structs.Node, *structs.QueryMeta, error) {
	args := structs.NodeSpecificRequest{NodeID: id, QueryOptions: q}
	var reply structs.SingleNodeResponse
	if err := s.RPC.RPC(structs.NodeGetNodeRPC, &args, &reply); err != nil {
		return nil, nil, err
	}
	return reply.Node, &reply.QueryMeta, nil
}
