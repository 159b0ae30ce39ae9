package server

import (
	"time"

	"github.com/nomadish/nomadish/structs"
)

// raftApplyTimeout bounds how long raftApply waits to enqueue an entry,
// and the leader's barrier.
const raftApplyTimeout = 30 * time.Second

// rpcHoldTimeout is how long a request waits for a leader before failing
// with ErrNoLeader (Nomad's rpc_hold_timeout): a client registering while
// the server is still electing itself waits instead of failing.
const rpcHoldTimeout = 5 * time.Second

// raftApply commits msg as an entry of type t and waits until it is applied
// to the local FSM. resp is the FSM's non-error response; an error the FSM
// returned comes back as err. Not the leader: structs.ErrNoLeader.
func (s *Server) raftApply(t structs.MessageType, msg any) (uint64, any, error) {
	buf, err := structs.Encode(t, msg)
	if err != nil {
		return 0, nil, err
	}
	if !s.waitForRaftLeader() {
		return 0, nil, structs.ErrNoLeader
	}
	return s.cluster.Apply(buf, raftApplyTimeout)
}

// waitForLeaderDuties reports whether this server runs the leader duties,
// waiting up to holdTimeout for them. Once they run, the FSM has applied
// every committed entry (establishLeadership's barrier), so a read answers
// from current state: a server that just restarted must not answer "not
// found" for what its raft log holds but has not replayed yet.
func (s *Server) waitForLeaderDuties() bool {
	timer := time.NewTimer(s.holdTimeout)
	defer timer.Stop()
	for {
		ch, ready := s.leader.ready()
		if ready {
			return true
		}
		select {
		case <-ch:
		case <-timer.C:
			return false
		case <-s.shutdownCh:
			return false
		}
	}
}

// waitForRaftLeader reports whether this server is the raft leader, waiting
// up to rpcHoldTimeout for leadership to be established.
func (s *Server) waitForRaftLeader() bool {
	if s.cluster.IsLeader() {
		return true
	}
	timer := time.NewTimer(s.holdTimeout)
	defer timer.Stop()
	for {
		ch, ready := s.leader.ready()
		if ready || s.cluster.IsLeader() {
			return s.cluster.IsLeader()
		}
		select {
		case <-ch:
		case <-timer.C:
			return false
		case <-s.shutdownCh:
			return false
		}
	}
}
