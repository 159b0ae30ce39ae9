package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/structs"
)

// NodeMetaClient is the optional part of the agent's client (httpDeps.Logs)
// that reads and changes its dynamic node metadata (client/node_meta.go).
type NodeMetaClient interface {
	NodeMeta() (*structs.NodeMetaResponse, error)
	ApplyNodeMeta(updates map[string]*string) (*structs.NodeMetaResponse, error)
}

func (s *httpServer) nodeMetaRoutes(h func(string, handlerFunc)) {
	h("GET /v1/client/metadata", s.nodeMetaRead)
	h("POST /v1/client/metadata", s.nodeMetaApply)
	h("PUT /v1/client/metadata", s.nodeMetaApply)
}

// localNodeMeta returns this agent's client when node (may be "") names
// it; forward is true when node names another node that must be asked.
func (s *httpServer) localNodeMeta(node string) (nm NodeMetaClient, forward bool, err error) {
	if s.Logs != nil && (node == "" || node == s.Logs.NodeID()) {
		if nm, ok := s.Logs.(NodeMetaClient); ok {
			return nm, false, nil
		}
		return nil, false, structs.NewCodedError(http.StatusNotImplemented, "this agent's client keeps no node metadata")
	}
	if node == "" {
		return nil, false, badRequest("this agent runs no client: node_id is required")
	}
	return nil, true, nil
}

// forwardNodeMeta sends r to node's agent over the node tunnel (once).
func (s *httpServer) forwardNodeMeta(w http.ResponseWriter, r *http.Request, node string) error {
	if s.Nodes == nil || r.Header.Get(forwardedHeader) != "" {
		return structs.NewCodedError(http.StatusNotFound, "node %s is not reachable from this agent", node)
	}
	return s.forwardToNode(w, r, node)
}

// nodeMetaApplyJSON is the body of POST /v1/client/metadata with each
// value left raw: a null is an unset here, which the generic decoding
// would refuse as a null member.
type nodeMetaApplyJSON struct {
	NodeID string
	Meta   map[string]json.RawMessage
}

// decodeNodeMetaApply decodes the body of POST /v1/client/metadata (and
// returns it, for a forward): values are strings or null.
func decodeNodeMetaApply(r *http.Request) (*structs.NodeMetaApplyRequest, []byte, error) {
	var in nodeMetaApplyJSON
	body, err := decodeBodyRaw(r, &in)
	if err != nil {
		return nil, nil, err
	}
	out := &structs.NodeMetaApplyRequest{NodeID: in.NodeID, Meta: make(map[string]*string, len(in.Meta))}
	for k, raw := range in.Meta {
		if string(raw) == "null" {
			out.Meta[k] = nil
			continue
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, nil, badRequest("Meta[%q] must be a string or null", k)
		}
		out.Meta[k] = &v
	}
	return out, body, nil
}

// nodeMetaRead serves GET /v1/client/metadata?node_id=: Nomad's
// NodeMetaResponse {Meta, Dynamic, Static} of that node's client (this
// agent's without node_id).
func (s *httpServer) nodeMetaRead(w http.ResponseWriter, r *http.Request) (any, error) {
	node := r.URL.Query().Get("node_id")
	nm, forward, err := s.localNodeMeta(node)
	if err != nil {
		return nil, err
	}
	if forward {
		return nil, s.forwardNodeMeta(w, r, node)
	}
	return nm.NodeMeta()
}

// nodeMetaApply serves POST /v1/client/metadata {"NodeID","Meta":{k: v or
// null}}: merges Meta into the client's dynamic metadata (null unsets) and
// answers the NodeMetaResponse after it. The client stores it and updates
// its node on the servers.
func (s *httpServer) nodeMetaApply(w http.ResponseWriter, r *http.Request) (any, error) {
	args, body, err := decodeNodeMetaApply(r)
	if err != nil {
		return nil, err
	}
	nm, forward, err := s.localNodeMeta(args.NodeID)
	if err != nil {
		return nil, err
	}
	if forward {
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		return nil, s.forwardNodeMeta(w, r, args.NodeID)
	}
	if len(args.Meta) == 0 {
		return nil, badRequest("Meta is required: a map of keys to values (null unsets)")
	}
	out, err := nm.ApplyNodeMeta(args.Meta)
	if errors.Is(err, client.ErrBadNodeMeta) {
		return nil, badRequest("%v", err)
	}
	return out, err
}
