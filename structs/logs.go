package structs

// Log rotation defaults, as in Nomad.
const (
	DefaultLogMaxFiles      = 10
	DefaultLogMaxFileSizeMB = 10
)

// LogConfig is a task's log rotation: at most MaxFiles files of
// MaxFileSizeMB each per stream; Disabled turns log collection off.
type LogConfig struct {
	MaxFiles      int
	MaxFileSizeMB int
	Disabled      bool
}
