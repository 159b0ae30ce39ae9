package agent

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/nomadish/nomadish/server/cluster"
	"github.com/nomadish/nomadish/structs"
)

// ClusterOps is what the agent's cluster endpoints need from the local
// server: joining other servers and the gossip keyring. The server's
// *cluster.Cluster satisfies it.
type ClusterOps interface {
	Join(addrs []string) (int, error)
	KeyringOp(op, key string) (*cluster.KeyringResponse, error)
	ForceLeave(name string) error
}

var _ ClusterOps = (*cluster.Cluster)(nil)

// clusterRoutes adds Nomad's agent join, force-leave and keyring endpoints.
func (s *httpServer) clusterRoutes(h func(string, handlerFunc)) {
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/agent/join", s.agentJoin)
		h(m+" /v1/agent/force-leave", s.agentForceLeave)
		h(m+" /v1/agent/keyring/{op}", s.agentKeyring)
	}
	h("GET /v1/agent/keyring/list", s.agentKeyring)
}

// joinResponse is api.JoinResponse.
type joinResponse struct {
	NumJoined int    `json:"num_joined"`
	Error     string `json:"error"`
}

// clusterOps returns the local server's operations, or a 400 when this
// agent runs no server (or runs without gossip, as in -dev).
func (s *httpServer) clusterOps() (ClusterOps, error) {
	if s.Cluster == nil {
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "this agent runs no server")
	}
	return s.Cluster, nil
}

// agentJoin serves PUT /v1/agent/join?address=A&address=B: serf joins the
// given servers. As Nomad, a failed join is a 200 with the error in the body.
func (s *httpServer) agentJoin(w http.ResponseWriter, r *http.Request) (any, error) {
	ops, err := s.clusterOps()
	if err != nil {
		return nil, err
	}
	addrs := r.URL.Query()["address"]
	if len(addrs) == 0 {
		return nil, badRequest("missing address to join")
	}
	n, err := ops.Join(serfAddrs(addrs))
	if errors.Is(err, cluster.ErrNoSerf) {
		return nil, badRequest("%v", err)
	}
	out := joinResponse{NumJoined: n}
	if err != nil {
		out.Error = err.Error()
	}
	return out, nil
}

// agentForceLeave serves PUT /v1/agent/force-leave?node=NAME.
func (s *httpServer) agentForceLeave(w http.ResponseWriter, r *http.Request) (any, error) {
	ops, err := s.clusterOps()
	if err != nil {
		return nil, err
	}
	node := r.URL.Query().Get("node")
	if node == "" {
		return nil, badRequest("missing node to force leave")
	}
	if err := ops.ForceLeave(node); err != nil {
		if errors.Is(err, cluster.ErrNoSerf) {
			return nil, badRequest("%v", err)
		}
		return nil, err
	}
	return nil, nil
}

// agentKeyring serves GET /v1/agent/keyring/list and PUT
// /v1/agent/keyring/{install,use,remove} with a {"Key": "..."} body.
func (s *httpServer) agentKeyring(w http.ResponseWriter, r *http.Request) (any, error) {
	ops, err := s.clusterOps()
	if err != nil {
		return nil, err
	}
	op := r.PathValue("op")
	if op == "" {
		op = cluster.KeyringList
	}
	var req struct{ Key string }
	if op != cluster.KeyringList {
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			return nil, badRequest("decoding the keyring request: %v", err)
		}
	}
	resp, err := ops.KeyringOp(op, req.Key)
	if errors.Is(err, cluster.ErrNoSerf) {
		return nil, badRequest("%v", err)
	}
	if err != nil {
		return nil, err
	}
	if op != cluster.KeyringList {
		return nil, nil
	}
	return resp, nil
}
