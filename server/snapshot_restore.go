package server

import (
	"github.com/nomadish/nomadish/server/fsm"
	"github.com/nomadish/nomadish/server/snapshot"
)

// checkedSnapshot opens an operator snapshot archive for a restore
// (snapshot.Open, its state decoded once by fsm.CheckSnapshot), its
// temporary file in the data dir unless in dev mode, under
// SnapshotRestoreMaxBytes. Errors are coded (400: a bad archive). On
// success the caller must Close the result.
func (s *Server) checkedSnapshot(archive []byte) (*snapshot.Archive, error) {
	dir := s.cfg.DataDir
	if s.cfg.DevMode {
		dir = ""
	}
	return snapshot.Open(archive, dir, s.cfg.SnapshotRestoreMaxBytes, fsm.CheckSnapshot)
}
