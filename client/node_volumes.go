package client

import "github.com/nomadish/nomadish/structs"

// hostVolumes copies the configured host volumes for the node, so the
// node's map is never the config's (nil when there are none).
func hostVolumes(in map[string]*structs.ClientHostVolumeConfig) map[string]*structs.ClientHostVolumeConfig {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]*structs.ClientHostVolumeConfig, len(in))
	for name, hv := range in {
		if hv != nil {
			c := *hv
			out[name] = &c
		}
	}
	return out
}
