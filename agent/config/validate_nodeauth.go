package config

// introEnforcements are the client_introduction.enforcement values
// (Nomad's); "" is the server's default, warn.
var introEnforcements = map[string]bool{"": true, "none": true, "warn": true, "strict": true}

// minIntroTokenLen is the shortest client introduction token accepted, so
// a token cannot be guessed.
const minIntroTokenLen = 16

// validateNodeAuth checks server { client_introduction { enforcement
// tokens } snapshot_restore_max_mb } and client { intro_token }.
func (c *Config) validateNodeAuth(bad func(key, format string, args ...any)) {
	s := c.Server
	if !introEnforcements[s.ClientIntroEnforcement] {
		bad("server.client_introduction.enforcement", "must be none, warn or strict; got %q", s.ClientIntroEnforcement)
	}
	for i, t := range s.ClientIntroTokens {
		if len(t) < minIntroTokenLen {
			bad("server.client_introduction.tokens", "token %d is shorter than %d characters", i, minIntroTokenLen)
		}
	}
	if s.SnapshotRestoreMaxMB < 0 {
		bad("server.snapshot_restore_max_mb", "can't be negative, got %d", s.SnapshotRestoreMaxMB)
	}
}
