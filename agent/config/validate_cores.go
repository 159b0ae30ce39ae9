package config

import (
	"path/filepath"
	"runtime"
	"slices"

	"github.com/nomadish/nomadish/client/fingerprint"
)

// validateCores checks client.sysfs_root and the client's cpusets
// (reserved.cores, reservable_cores): each must parse, and when the client
// is enabled each core must be one the machine has, as read from the sysfs
// tree at sysfs_root (every CPU runtime.NumCPU counts when the tree names
// none).
func (c *Config) validateCores(bad func(key, format string, args ...any)) {
	root := c.Client.SysfsRoot
	if root != "" && !filepath.IsAbs(root) {
		bad("client.sysfs_root", "must be an absolute path, got %q", root)
		return
	}
	var machine []uint16
	for _, kv := range []struct{ key, set string }{
		{"client.reserved.cores", c.Client.ReservedCores}, {"client.reservable_cores", c.Client.ReservableCores},
	} {
		cores, err := fingerprint.ParseCPUSet(kv.set)
		if err != nil {
			bad(kv.key, "%v (want a cpuset such as \"0-1,4\")", err)
			continue
		}
		if len(cores) == 0 || !c.Client.Enabled {
			continue
		}
		if machine == nil {
			machine = machineCPUs(root)
		}
		for _, id := range cores {
			if _, ok := slices.BinarySearch(machine, id); !ok {
				bad(kv.key, "core %d is not on this machine (cores %s)", id, fingerprint.FormatCPUSet(machine))
				break
			}
		}
	}
}

// machineCPUs returns the CPU IDs the sysfs tree at root names, else
// 0..runtime.NumCPU()-1.
func machineCPUs(root string) []uint16 {
	if root == "" {
		root = "/sys"
	}
	if cpus := fingerprint.MachineCPUs(root); len(cpus) > 0 {
		return cpus
	}
	out := make([]uint16, runtime.NumCPU())
	for i := range out {
		out[i] = uint16(i)
	}
	return out
}
