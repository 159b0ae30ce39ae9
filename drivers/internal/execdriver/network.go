package execdriver

import (
	"fmt"
	"os"

	"github.com/nomadish/nomadish/drivers/base"
)

// Group networks (base.TaskConfig.Network): the task's process is born in
// the group's network namespace (netns.Start from the forking thread;
// for exec that is the init, whose children inherit it), and exec binds
// the group's hosts and resolv.conf files over /etc/hosts and
// /etc/resolv.conf in the task's mount namespace. A recovered task stays
// where it is: nothing here runs again after a plugin restart.

// netnsPath is the namespace file the task starts in; "" for the host's.
func netnsPath(cfg *base.TaskConfig) string {
	if cfg.Network == nil {
		return ""
	}
	return cfg.Network.Path
}

// networkFilesFor returns the read-only binds of the group's /etc files
// for the init (exec only; raw_exec shares the host's /etc).
func networkFilesFor(cfg *base.TaskConfig) ([]bindMount, error) {
	n := cfg.Network
	if n == nil {
		return nil, nil
	}
	var out []bindMount
	for _, f := range []struct{ src, dst string }{{n.HostsPath, "/etc/hosts"}, {n.ResolvConfPath, "/etc/resolv.conf"}} {
		if f.src == "" {
			continue
		}
		st, err := os.Stat(f.src)
		if err != nil {
			return nil, fmt.Errorf("network: %s for the task's %s: %w", f.src, f.dst, err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("network: %s for the task's %s is not a regular file", f.src, f.dst)
		}
		out = append(out, bindMount{Source: f.src, Target: f.dst, ReadOnly: true})
	}
	return out, nil
}
