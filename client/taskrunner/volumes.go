package taskrunner

import (
	"errors"
	"fmt"
	"path"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// Host volumes: a task's volume_mount blocks, resolved against its group's
// volume requests and the node's host volumes, become the driver's
// base.TaskConfig.Mounts.

var errNoNode = errors.New("the client's node is not known yet")

// TaskMounts returns the mounts of task in alloc's group on node: one per
// volume_mount, read-only when the mount, the request or the host volume
// is. TaskPath is the destination made absolute and clean ("data" and
// "/data" are both "/data"). An error names the mount that cannot be
// resolved: a volume the group lacks, or a host volume the node lacks or
// has read-only for a read-write request.
func TaskMounts(alloc *structs.Allocation, task *structs.Task, node *structs.Node) ([]base.MountConfig, error) {
	if len(task.VolumeMounts) == 0 {
		return nil, nil
	}
	if node == nil {
		return nil, errNoNode
	}
	var tg *structs.TaskGroup
	if alloc.Job != nil {
		tg = alloc.Job.LookupTaskGroup(alloc.TaskGroup)
	}
	if tg == nil {
		return nil, fmt.Errorf("allocation %s has no group %q", alloc.ID, alloc.TaskGroup)
	}
	out := make([]base.MountConfig, 0, len(task.VolumeMounts))
	for _, m := range task.VolumeMounts {
		if m == nil {
			continue
		}
		req := tg.Volumes[m.Volume]
		if req == nil {
			return nil, fmt.Errorf("volume_mount: group %q has no volume %q", tg.Name, m.Volume)
		}
		if req.Type != structs.VolumeTypeHost {
			return nil, fmt.Errorf("volume %q: type %q can't be mounted", m.Volume, req.Type)
		}
		if ok, reason := structs.HostVolumeFits(node, req); !ok {
			return nil, fmt.Errorf("volume %q: %s on this node", m.Volume, reason)
		}
		hv := node.HostVolumes[req.Source]
		out = append(out, base.MountConfig{
			TaskPath:        path.Clean("/" + m.Destination),
			HostPath:        hv.Path,
			Readonly:        m.ReadOnly || req.ReadOnly || hv.ReadOnly,
			Volume:          m.Volume,
			PropagationMode: m.PropagationMode,
		})
	}
	return out, nil
}

// volumesHook checks, before every start, that the task's volume mounts
// resolve on this node, so a task whose host volume went away fails with
// the reason instead of running without it.
var volumesHook = prestartHook{name: "volumes", run: func(tr *TaskRunner) (*structs.TaskEvent, error) {
	if len(tr.cfg.Task.VolumeMounts) == 0 {
		return nil, nil
	}
	var node *structs.Node
	if tr.cfg.Node != nil {
		node = tr.cfg.Node()
	}
	_, err := TaskMounts(tr.alloc(), tr.cfg.Task, node)
	return nil, err
}}

// taskMountsOrNil is TaskMounts for BuildTaskConfig, which cannot fail: the
// volumes prestart hook has reported an unresolvable mount before.
func taskMountsOrNil(alloc *structs.Allocation, task *structs.Task, node *structs.Node) []base.MountConfig {
	ms, err := TaskMounts(alloc, task, node)
	if err != nil {
		return nil
	}
	return ms
}
