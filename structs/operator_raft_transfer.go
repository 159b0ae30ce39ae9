package structs

// OperatorRaftTransferLeadershipRPC asks the leader to hand raft leadership
// to another voter (PUT /v1/operator/raft/transfer-leadership).
const OperatorRaftTransferLeadershipRPC = "Operator.RaftTransferLeadership"

// RaftTransferLeadershipRequest names the voter to hand leadership to: by
// raft ID or by raft address (at most one); neither lets raft pick the most
// up-to-date voter.
type RaftTransferLeadershipRequest struct {
	ID      string
	Address string
	WriteRequest
}
