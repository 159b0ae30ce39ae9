package structs

import (
	"fmt"
	"path"
	"sort"
)

// Volume types (VolumeRequest.Type). nomadish implements host volumes;
// csi is Nomad's other type and is refused by Validate.
const (
	VolumeTypeHost = "host"
	VolumeTypeCSI  = "csi"
)

// Volume mount propagation modes (VolumeMount.PropagationMode), Nomad's.
const (
	VolumeMountPropagationPrivate       = "private"
	VolumeMountPropagationHostToTask    = "host-to-task"
	VolumeMountPropagationBidirectional = "bidirectional"
)

// ClientHostVolumeConfig is one client { host_volume "name" { path
// read_only } } block, fingerprinted onto the node (Node.HostVolumes,
// keyed by Name) as Nomad's JSON.
type ClientHostVolumeConfig struct {
	Name     string
	Path     string
	ReadOnly bool
}

// VolumeRequest is a group's volume "name" { type source read_only } block:
// with type "host" it asks for the node's host volume Source, and the
// scheduler places the group only on nodes that have it (writable unless
// ReadOnly). The CSI fields are kept for Nomad's JSON and refused.
type VolumeRequest struct {
	Name           string
	Type           string
	Source         string
	ReadOnly       bool
	Sticky         bool
	AccessMode     string
	AttachmentMode string
	PerAlloc       bool
}

// VolumeMount is a task's volume_mount { volume destination read_only
// propagation_mode } block: where the group's volume Volume appears in the
// task.
type VolumeMount struct {
	Volume          string
	Destination     string
	ReadOnly        bool
	PropagationMode string
	SELinuxLabel    string // docker's bind label (Nomad's field; kept, not applied yet)
}

// canonicalizeVolumes fills the defaults Nomad fills: a request's Name is
// its map key, a mount's propagation mode "private".
func (tg *TaskGroup) canonicalizeVolumes() {
	for name, v := range tg.Volumes {
		if v != nil && v.Name == "" {
			v.Name = name
		}
	}
	for _, t := range tg.Tasks {
		for _, m := range t.VolumeMounts {
			if m != nil && m.PropagationMode == "" {
				m.PropagationMode = VolumeMountPropagationPrivate
			}
		}
	}
}

// validateVolumes checks the group's volume requests and its tasks'
// volume mounts, naming the group, task and volume of each problem.
func (tg *TaskGroup) validateVolumes(errs *MultiError) {
	names := make([]string, 0, len(tg.Volumes))
	for name := range tg.Volumes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := tg.Volumes[name]
		where := fmt.Sprintf("group %q: volume %q", tg.Name, name)
		switch {
		case v == nil:
			errs.Add(fmt.Errorf("%s: empty volume request", where))
			continue
		case v.Type == VolumeTypeCSI:
			errs.Add(fmt.Errorf("%s: csi volumes are not supported by nomadish; use type = %q", where, VolumeTypeHost))
		case v.Type != VolumeTypeHost:
			errs.Add(fmt.Errorf("%s: type %q must be %q", where, v.Type, VolumeTypeHost))
		}
		if v.Source == "" {
			errs.Add(fmt.Errorf("%s: source is required (the client's host_volume name)", where))
		}
		if v.PerAlloc {
			errs.Add(fmt.Errorf("%s: per_alloc applies to csi volumes only", where))
		}
	}
	for _, t := range tg.Tasks {
		for i, m := range t.VolumeMounts {
			where := fmt.Sprintf("group %q: task %q: volume_mount %d", tg.Name, t.Name, i+1)
			if m == nil {
				errs.Add(fmt.Errorf("%s: empty volume_mount", where))
				continue
			}
			m.validate(where, tg.Volumes, errs)
		}
	}
}

func (m *VolumeMount) validate(where string, vols map[string]*VolumeRequest, errs *MultiError) {
	if m.Volume == "" {
		errs.Add(fmt.Errorf("%s: volume is required", where))
	} else if _, ok := vols[m.Volume]; !ok {
		errs.Add(fmt.Errorf("%s: volume %q is not a volume of the group", where, m.Volume))
	}
	if m.Destination == "" {
		errs.Add(fmt.Errorf("%s: destination is required", where))
	} else if d := path.Clean("/" + m.Destination); d == "/" {
		errs.Add(fmt.Errorf("%s: destination %q can't be the task's root", where, m.Destination))
	} else if !path.IsAbs(m.Destination) && path.Clean(m.Destination) != d[1:] {
		errs.Add(fmt.Errorf("%s: destination %q escapes the task", where, m.Destination))
	}
	switch m.PropagationMode {
	case "", VolumeMountPropagationPrivate, VolumeMountPropagationHostToTask, VolumeMountPropagationBidirectional:
	default:
		errs.Add(fmt.Errorf("%s: propagation_mode %q must be %q, %q or %q", where, m.PropagationMode,
			VolumeMountPropagationPrivate, VolumeMountPropagationHostToTask, VolumeMountPropagationBidirectional))
	}
}

// HostVolumeFits reports whether node n offers host volume request v: the
// node has a host volume named v.Source, and it is writable unless v is
// read-only. reason says why not, for explanations.
func HostVolumeFits(n *Node, v *VolumeRequest) (ok bool, reason string) {
	hv, found := n.HostVolumes[v.Source]
	switch {
	case !found || hv == nil:
		return false, fmt.Sprintf("host volume %q missing", v.Source)
	case hv.ReadOnly && !v.ReadOnly:
		return false, fmt.Sprintf("host volume %q is read-only", v.Source)
	}
	return true, ""
}
