package scheduler_test

import (
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// nodeVolumeArgs reads node add ... volumes=name,name:ro (host volumes).
func (sc *scenario) nodeVolumeArgs(n *structs.Node, args map[string]string) {
	for _, spec := range list(args["volumes"]) {
		name, ro := strings.CutSuffix(spec, ":ro")
		if n.HostVolumes == nil {
			n.HostVolumes = map[string]*structs.ClientHostVolumeConfig{}
		}
		n.HostVolumes[name] = &structs.ClientHostVolumeConfig{Name: name, Path: "/srv/" + name, ReadOnly: ro}
	}
}

// jobVolumeArgs reads job add ... volumes=source,source:ro (the group asks
// for host volume source as volume "v-<source>") and sticky=true|migrate=true
// (the group's ephemeral disk).
func (sc *scenario) jobVolumeArgs(j *structs.Job, args map[string]string) {
	tg := j.TaskGroups[0]
	for _, spec := range list(args["volumes"]) {
		src, ro := strings.CutSuffix(spec, ":ro")
		if tg.Volumes == nil {
			tg.Volumes = map[string]*structs.VolumeRequest{}
		}
		tg.Volumes["v-"+src] = &structs.VolumeRequest{Name: "v-" + src, Type: structs.VolumeTypeHost, Source: src, ReadOnly: ro}
	}
	if args["sticky"] == "true" || args["migrate"] == "true" {
		if tg.EphemeralDisk == nil {
			tg.EphemeralDisk = structs.DefaultEphemeralDisk()
		}
		tg.EphemeralDisk.Sticky = args["sticky"] == "true"
		tg.EphemeralDisk.Migrate = args["migrate"] == "true"
	}
}
