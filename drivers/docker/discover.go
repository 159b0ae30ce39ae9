package docker

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/nomadish/nomadish/drivers/base"
)

var _ base.TaskDiscoverer = (*Driver)(nil)

// DiscoverTask finds the running container of cfg's alloc and task name
// by the labels the driver set on it (alloc ID, task name, and the alloc
// dir of this client, since clients may share an engine) and re-attaches
// to it (RecoverTask) under the task ID it was created with. No such
// running container is ErrTaskNotFound; a stopped one is left to StartTask,
// which replaces it.
func (d *Driver) DiscoverTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	cli, _, err := d.client()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	list, err := cli.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(
		filters.Arg("label", LabelAllocID+"="+cfg.AllocID),
		filters.Arg("label", LabelTaskName+"="+cfg.Name),
		filters.Arg("status", "running"))})
	if err != nil {
		return nil, fmt.Errorf("docker: looking for the container of task %s/%s: %w", cfg.AllocID, cfg.Name, err)
	}
	var mine []container.Summary
	for _, c := range list {
		if c.Labels[LabelAllocDir] == cfg.AllocDir && strings.HasPrefix(c.Labels[LabelTaskID], cfg.AllocID+"/"+cfg.Name+"/") {
			mine = append(mine, c)
		}
	}
	if len(mine) == 0 {
		return nil, fmt.Errorf("docker: task %s/%s: no running container: %w", cfg.AllocID, cfg.Name, base.ErrTaskNotFound)
	}
	// One copy only: adopt the newest, remove any older one.
	slices.SortFunc(mine, func(a, b container.Summary) int { return cmp.Compare(b.Created, a.Created) })
	for _, c := range mine[1:] {
		d.logger.Warn("removing a second running container of a task", "alloc_id", cfg.AllocID, "task", cfg.Name, "container", c.ID)
		if err := cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			d.logger.Warn("removing duplicate container", "container", c.ID, "error", err)
		}
	}
	found := mine[0]
	st := driverState{ContainerID: found.ID, Image: found.Image, ImageID: found.ImageID,
		StartedAt: time.Unix(found.Created, 0)}
	b, _ := json.Marshal(st) // plain data: cannot fail
	hcfg := *cfg
	hcfg.ID = found.Labels[LabelTaskID]
	h := &base.TaskHandle{Version: base.TaskHandleVersion, Config: &hcfg, State: base.TaskStateRunning, DriverState: b}
	if err := d.RecoverTask(h); err != nil {
		return nil, err
	}
	d.logger.Info("re-discovered container by its labels", "task", hcfg.ID, "container", found.ID)
	return h, nil
}
