package server

import "github.com/hashicorp/raft"

// applyErr waits for an Apply future and returns its error, or
// raft.ErrRaftShutdown once the server is shutting down: raft never
// answers a future still queued when it stops (Apply's futures have no
// shutdown channel), and a worker waiting on one would hold Shutdown
// (revokeLeadership waits for the workers) forever.
func (s *Server) applyErr(f raft.ApplyFuture) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		return err
	case <-s.shutdownCh:
		return raft.ErrRaftShutdown
	}
}
