package endpoints

import (
	"fmt"

	"github.com/nomadish/nomadish/acl"

	"github.com/nomadish/nomadish/structs"
)

// RaftGetConfiguration lists the servers of the latest raft configuration
// (committed or not), marking the leader. Served by the leader unless the
// query allows stale (the server's forwarding).
func (o *Operator) RaftGetConfiguration(args *structs.GenericRequest, reply *structs.RaftConfigurationResponse) error {
	if err := o.d.allowLevel(args.AuthToken, "operator read", (*acl.ACL).AllowOperatorRead); err != nil {
		return err
	}
	servers, index, err := o.d.Cluster.RaftServers()
	if err != nil {
		return fmt.Errorf("reading the raft configuration: %w", err)
	}
	reply.Index, reply.Servers = index, servers
	return nil
}

// RaftRemovePeerByID removes the raft server with ID args.ID from the
// configuration (on the leader). An unknown ID is a 404 coded error.
func (o *Operator) RaftRemovePeerByID(args *structs.RaftPeerRequest, reply *structs.GenericResponse) error {
	if err := o.d.allowLevel(args.AuthToken, "operator write", (*acl.ACL).AllowOperatorWrite); err != nil {
		return err
	}
	return o.removePeer(reply, func(srv *structs.RaftServer) bool { return args.ID != "" && srv.ID == args.ID },
		"id", args.ID)
}

// RaftRemovePeerByAddress removes the raft server at args.Address (its raft
// host:port). An unknown address is a 404 coded error.
func (o *Operator) RaftRemovePeerByAddress(args *structs.RaftPeerRequest, reply *structs.GenericResponse) error {
	if err := o.d.allowLevel(args.AuthToken, "operator write", (*acl.ACL).AllowOperatorWrite); err != nil {
		return err
	}
	return o.removePeer(reply, func(srv *structs.RaftServer) bool { return args.Address != "" && srv.Address == args.Address },
		"address", args.Address)
}

// removePeer removes the peer match accepts, named key=val in errors: a
// missing val is a 400, no such peer a 404.
func (o *Operator) removePeer(reply *structs.GenericResponse, match func(*structs.RaftServer) bool, key, val string) error {
	if val == "" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "a peer %s is required", key)
	}
	index, found, err := o.d.Cluster.RemoveRaftPeer(match)
	if err != nil {
		return err
	}
	if !found {
		return structs.NewCodedError(structs.ErrCodeNotFound, "no raft peer with %s %q", key, val)
	}
	reply.Index = index
	return nil
}

// SnapshotSave takes a raft snapshot on the serving server (the leader
// unless the query allows stale) after a barrier, so it holds every entry
// committed before the call, and returns it as an archive.
func (o *Operator) SnapshotSave(args *structs.GenericRequest, reply *structs.SnapshotSaveResponse) error {
	if err := o.d.allowLevel(args.AuthToken, "management", (*acl.ACL).IsManagement); err != nil {
		return err
	}
	archive, index, err := o.d.Cluster.SaveSnapshot()
	if err != nil {
		return err
	}
	reply.Archive, reply.Index = archive, index
	return nil
}

// SnapshotRestore replaces the cluster's state with an archive's (on the
// leader; see Cluster.RestoreSnapshot): a bad archive is a 400 coded error
// and changes nothing; a second restore meanwhile fails at once with
// ErrSnapshotRestoreInProgress (429).
func (o *Operator) SnapshotRestore(args *structs.SnapshotRestoreRequest, reply *structs.SnapshotRestoreResponse) error {
	if err := o.d.allowLevel(args.AuthToken, "management", (*acl.ACL).IsManagement); err != nil {
		return err
	}
	index, err := o.d.Cluster.RestoreSnapshot(args.Archive)
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}
