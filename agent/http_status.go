package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// statusLeader serves GET /v1/status/leader: the leader's RPC address as a
// JSON string ("" when there is none).
func (s *httpServer) statusLeader(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.GenericRequest{QueryOptions: q}
	var leader string
	if err := s.RPC.RPC(structs.StatusLeaderRPC, &args, &leader); err != nil {
		return nil, err
	}
	return leader, nil
}

// statusPeers serves GET /v1/status/peers: the raft peers' addresses.
func (s *httpServer) statusPeers(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.GenericRequest{QueryOptions: q}
	var peers []string
	if err := s.RPC.RPC(structs.StatusPeersRPC, &args, &peers); err != nil {
		return nil, err
	}
	if peers == nil {
		peers = []string{}
	}
	return peers, nil
}

// regions serves GET /v1/regions. One region per cluster for now: the
// agent's own.
func (s *httpServer) regions(w http.ResponseWriter, r *http.Request) (any, error) {
	return []string{s.Region}, nil
}
