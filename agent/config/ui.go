package config

// UI is the ui block, with Nomad's name and default: the agent serves the
// embedded web UI at /ui/ (and redirects / there) unless enabled = false.
type UI struct {
	Enabled bool
}

// DefaultUI returns Nomad's default: the UI on.
func DefaultUI() UI { return UI{Enabled: true} }

// uiFields are the ui block's keys.
func (c *Config) uiFields() []field {
	return []field{{"ui.enabled", &c.UI.Enabled}}
}
