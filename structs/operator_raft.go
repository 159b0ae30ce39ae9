package structs

// RPC methods of the raft and snapshot operator commands.
const (
	OperatorRaftGetConfigurationRPC    = "Operator.RaftGetConfiguration"
	OperatorRaftRemovePeerByIDRPC      = "Operator.RaftRemovePeerByID"
	OperatorRaftRemovePeerByAddressRPC = "Operator.RaftRemovePeerByAddress"
	OperatorSnapshotSaveRPC            = "Operator.SnapshotSave"
	OperatorSnapshotRestoreRPC         = "Operator.SnapshotRestore"
)

// MaxSnapshotArchiveBytes caps a snapshot restore's archive (the compressed
// body of PUT /v1/operator/snapshot, and so the Archive of an
// Operator.SnapshotRestore request; the server's RPC byte budget for that
// method follows from it).
const MaxSnapshotArchiveBytes = 512 << 20

// RaftServer is one server of the raft configuration (Nomad's
// api.RaftServer).
type RaftServer struct {
	// ID is the raft server ID.
	ID string
	// Node is the server's name (for this server, its node name; for the
	// others, the host of Address when no name is known).
	Node string
	// Address is the raft (RPC) host:port.
	Address string
	// Leader is true for the current raft leader.
	Leader bool
	// Voter is true for a voting member.
	Voter bool
	// RaftProtocol is the raft protocol version ("3").
	RaftProtocol string
}

// RaftConfigurationResponse answers Operator.RaftGetConfiguration and GET
// /v1/operator/raft/configuration (Nomad's shape): the servers of the
// latest raft configuration and the log index it was committed at.
type RaftConfigurationResponse struct {
	Servers []*RaftServer
	Index   uint64
}

// RaftPeerRequest names the peer Operator.RaftRemovePeerByID (ID) or
// Operator.RaftRemovePeerByAddress (Address) removes.
type RaftPeerRequest struct {
	ID      string
	Address string
	WriteRequest
}

// SnapshotSaveResponse carries a snapshot archive (Operator.SnapshotSave):
// a gzipped tar of meta.json (the raft snapshot's metadata), state.bin (the
// FSM's persisted state) and SHA256SUMS, written by the leader.
type SnapshotSaveResponse struct {
	// Archive is the gzipped tar.
	Archive []byte
	// Index is the raft index the snapshot holds state up to.
	Index uint64
}

// SnapshotRestoreRequest carries an archive written by SnapshotSave to
// restore on the leader (Operator.SnapshotRestore).
type SnapshotRestoreRequest struct {
	Archive []byte
	WriteRequest
}

// SnapshotRestoreResponse answers a restore: Index is the leader's last
// raft index once the snapshot's state is in place.
type SnapshotRestoreResponse struct {
	Index uint64
}
