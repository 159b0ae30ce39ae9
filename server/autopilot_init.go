package server

import (
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// initAutopilotConfig stores Config.Autopilot (the agent's autopilot
// block) through raft when no autopilot configuration is stored yet, as
// Nomad's leader does; a check-and-set at 0, so it never replaces one an
// operator wrote. Called on gaining leadership; a failure is logged (the
// defaults then apply).
func (s *Server) initAutopilotConfig() {
	if s.cfg.Autopilot == nil {
		return
	}
	if idx, err := s.State().Snapshot().Index(state.TableAutopilotConfig); err != nil || idx != 0 {
		return
	}
	cfg := *s.cfg.Autopilot
	cfg.ModifyIndex = 0
	if _, _, err := s.raftApply(structs.AutopilotConfigRequestType, &structs.AutopilotSetConfigRequest{Config: cfg, CAS: true}); err != nil {
		s.logger.Warn("storing the initial autopilot configuration", "error", err)
	}
}
