package docker

import (
	"path"
	"strings"

	"github.com/nomadish/nomadish/drivers/base"
)

// volumeBinds are the task's host volumes (base.TaskConfig.Mounts) as
// engine binds "host:container[:ro,rslave|rshared,label]". Host volumes
// come from the client's config, not the job, so they need no plugin
// volumes { enabled = true } (as in Nomad). A relative destination is taken
// from the container's root.
func volumeBinds(mounts []base.MountConfig, label string) []string {
	out := make([]string, 0, len(mounts))
	for _, m := range mounts {
		var opts []string
		if m.Readonly {
			opts = append(opts, "ro")
		}
		switch m.PropagationMode {
		case "host-to-task":
			opts = append(opts, "rslave")
		case "bidirectional":
			opts = append(opts, "rshared")
		}
		out = append(out, bindSpec(m.HostPath, path.Clean("/"+m.TaskPath), strings.Join(opts, ","), label))
	}
	return out
}
