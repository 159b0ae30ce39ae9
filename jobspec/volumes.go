package jobspec

import (
	"sort"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/nomadish/nomadish/internal/suggest"
	"github.com/nomadish/nomadish/structs"
)

// decodeVolume decodes a group's volume "name" { type source read_only … }
// block into tg.Volumes; a second block of the same name is an error at its
// label, a type other than host at its value.
func (p *parser) decodeVolume(b *hclsyntax.Block, tg *structs.TaskGroup) {
	if !p.labels(b, "name") {
		return
	}
	v := &structs.VolumeRequest{Name: b.Labels[0]}
	p.decodeBody(b.Body, bodySpec{
		where: "volume",
		attrs: map[string]any{
			"type": &v.Type, "source": &v.Source, "read_only": &v.ReadOnly, "sticky": &v.Sticky,
			"access_mode": &v.AccessMode, "attachment_mode": &v.AttachmentMode, "per_alloc": &v.PerAlloc,
		},
		blocks: blockFuncs{"mount_options": func(*hclsyntax.Block) {}}, // csi only: refused below
	})
	if _, dup := tg.Volumes[v.Name]; dup {
		p.errorf(b.LabelRanges[0], "Duplicate volume block", "The group already has a volume named %q.", v.Name)
		return
	}
	switch {
	case v.Type == structs.VolumeTypeCSI:
		p.errorf(valueRange(b, "type"), "Unsupported volume type",
			"nomadish implements host volumes only; csi volume %q can't be mounted (use type = %q).", v.Name, structs.VolumeTypeHost)
	case v.Type != structs.VolumeTypeHost:
		p.errorf(valueRange(b, "type"), "Invalid volume type", "The volume type %q is not %q.", v.Type, structs.VolumeTypeHost)
	case v.Source == "":
		p.errorf(valueRange(b, "source"), "Missing volume source",
			"Volume %q needs source = the name of a client's host_volume.", v.Name)
	}
	if tg.Volumes == nil {
		tg.Volumes = map[string]*structs.VolumeRequest{}
	}
	tg.Volumes[v.Name] = v
}

// decodeVolumeMount decodes a task's volume_mount block. Whether its volume
// is one of the group's is checked once the whole group is decoded
// (checkVolumeMounts), since the volume block may come after the task.
func (p *parser) decodeVolumeMount(b *hclsyntax.Block) *structs.VolumeMount {
	if !p.labels(b) {
		return nil
	}
	m := &structs.VolumeMount{}
	p.decodeBody(b.Body, bodySpec{
		where: "volume_mount",
		attrs: map[string]any{
			"volume": &m.Volume, "destination": &m.Destination, "read_only": &m.ReadOnly,
			"propagation_mode": &m.PropagationMode, "selinux_label": &m.SELinuxLabel,
		},
	})
	if m.Destination == "" {
		p.errorf(valueRange(b, "destination"), "Missing volume_mount destination",
			"A volume_mount needs destination = the path the volume appears at in the task.")
	}
	switch m.PropagationMode {
	case "", structs.VolumeMountPropagationPrivate, structs.VolumeMountPropagationHostToTask, structs.VolumeMountPropagationBidirectional:
	default:
		p.errorf(valueRange(b, "propagation_mode"), "Invalid propagation_mode", "The propagation_mode %q is not one of %q, %q or %q.",
			m.PropagationMode, structs.VolumeMountPropagationPrivate, structs.VolumeMountPropagationHostToTask, structs.VolumeMountPropagationBidirectional)
	}
	return m
}

// checkVolumeMounts reports, at its volume argument, every volume_mount of
// the group block g's tasks that names no volume of tg.
func (p *parser) checkVolumeMounts(g *hclsyntax.Block, tg *structs.TaskGroup) {
	known := make([]string, 0, len(tg.Volumes))
	for name := range tg.Volumes {
		known = append(known, name)
	}
	sort.Strings(known)
	for _, tb := range g.Body.Blocks {
		if tb.Type != "task" {
			continue
		}
		for _, mb := range tb.Body.Blocks {
			a := mb.Body.Attributes["volume"]
			if mb.Type != "volume_mount" {
				continue
			}
			if a == nil {
				p.errorf(mb.OpenBraceRange, "Missing volume_mount volume", "A volume_mount needs volume = the name of a volume block of its group.")
				continue
			}
			val, diags := p.value(a.Expr, p.ctx)
			if diags.HasErrors() || val.IsNull() || !val.IsKnown() || val.Type() != cty.String {
				continue // reported when the block was decoded
			}
			if name := val.AsString(); tg.Volumes[name] == nil {
				p.errorf(a.Expr.Range(), "Unknown volume", "Group %q has no volume %q to mount.%s",
					tg.Name, name, suggest.DidYouMean(name, known))
			}
		}
	}
}
