package server

import (
	"errors"
	"fmt"

	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/structs"
)

var _ endpoints.LeadershipTransferer = (*Server)(nil)

// TransferLeadership hands raft leadership from this server (the leader)
// to the voter target accepts, or to the voter raft picks when target is
// nil. found is false when target accepts no other voter. It returns once
// raft has completed the transfer (or failed it).
func (s *Server) TransferLeadership(target func(*structs.RaftServer) bool) (bool, error) {
	r := s.cluster.Raft()
	if r.State() != raft.Leader {
		return false, structs.ErrNoLeader
	}
	if target == nil {
		if err := r.LeadershipTransfer().Error(); err != nil {
			return true, fmt.Errorf("transferring raft leadership: %w", err)
		}
		s.logger.Info("transferred raft leadership")
		return true, nil
	}
	f := r.GetConfiguration()
	if err := f.Error(); err != nil {
		return false, fmt.Errorf("reading the raft configuration: %w", err)
	}
	for _, srv := range f.Configuration().Servers {
		if srv.Suffrage != raft.Voter || !target(&structs.RaftServer{ID: string(srv.ID), Address: string(srv.Address)}) {
			continue
		}
		if string(srv.ID) == s.cluster.ServerID() {
			return true, nil // already the leader
		}
		if err := r.LeadershipTransferToServer(srv.ID, srv.Address).Error(); err != nil {
			if errors.Is(err, raft.ErrNotLeader) {
				return true, structs.ErrNoLeader
			}
			return true, fmt.Errorf("transferring raft leadership to %s: %w", srv.ID, err)
		}
		s.logger.Info("transferred raft leadership", "to_id", srv.ID, "to_address", srv.Address)
		return true, nil
	}
	return false, nil
}
