package endpoints

import (
	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/structs"
)

// LeadershipTransferer is the optional part of Cluster that hands raft
// leadership to another voter. target is nil to let raft choose; found is
// false when target names no voter of the configuration.
type LeadershipTransferer interface {
	TransferLeadership(target func(*structs.RaftServer) bool) (found bool, err error)
}

// RaftTransferLeadership hands raft leadership from the leader (the
// request is a write, so it is served there) to the voter args names by ID
// or address, or to the one raft picks with neither. Both is a 400, an
// unknown or non-voting peer a 400 as Nomad answers.
func (o *Operator) RaftTransferLeadership(args *structs.RaftTransferLeadershipRequest, reply *structs.GenericResponse) error {
	if err := o.d.allowLevel(args.AuthToken, "operator write", (*acl.ACL).AllowOperatorWrite); err != nil {
		return err
	}
	if args.ID != "" && args.Address != "" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "specify either a peer id or a peer address, not both")
	}
	t, ok := o.d.Cluster.(LeadershipTransferer)
	if !ok {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "this server cannot transfer raft leadership")
	}
	var match func(*structs.RaftServer) bool
	switch {
	case args.ID != "":
		match = func(s *structs.RaftServer) bool { return s.ID == args.ID }
	case args.Address != "":
		match = func(s *structs.RaftServer) bool { return s.Address == args.Address }
	}
	found, err := t.TransferLeadership(match)
	if err != nil {
		return err
	}
	if !found {
		key, val := "id", args.ID
		if args.Address != "" {
			key, val = "address", args.Address
		}
		return structs.NewCodedError(structs.ErrCodeBadRequest, "no voting raft peer with %s %q", key, val)
	}
	return nil
}
