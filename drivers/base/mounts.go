package base

// MountConfig is a host directory made visible in a task: a group's host
// volume mounted by a task's volume_mount. The client builds it from the
// node's host volumes (client/taskrunner/volumes.go); each driver applies
// it its own way: exec bind-mounts HostPath at TaskPath inside the task's
// mount namespace, docker binds it into the container, raw_exec (no
// isolation) only tells the task where HostPath is.
type MountConfig struct {
	// TaskPath is where the volume appears: absolute in the task's view
	// (a container path for docker; for exec, relative to the task dir).
	TaskPath string
	// HostPath is the host volume's directory.
	HostPath string
	// Readonly mounts it read-only (the volume, the request or the mount
	// says so).
	Readonly bool
	// Volume is the group's volume name (for raw_exec's environment).
	Volume string
	// PropagationMode is "private", "host-to-task" or "bidirectional".
	PropagationMode string
}
