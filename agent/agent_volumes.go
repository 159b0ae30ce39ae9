package agent

import (
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/structs"
)

// hostVolumes turns the client's host_volume blocks into the node's host
// volumes (Nomad's ClientHostVolumeConfig), keyed by name.
func hostVolumes(in []config.HostVolume) map[string]*structs.ClientHostVolumeConfig {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]*structs.ClientHostVolumeConfig, len(in))
	for _, hv := range in {
		out[hv.Name] = &structs.ClientHostVolumeConfig{Name: hv.Name, Path: hv.Path, ReadOnly: hv.ReadOnly}
	}
	return out
}
