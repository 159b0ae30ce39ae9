package taskrunner

import (
	"fmt"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// capabler is the driver method Update asks before UpdateTask.
type capabler interface {
	Capabilities() (*base.Capabilities, error)
}

// alloc is the newest version of the allocation: the next start of the
// task takes its resources from it.
func (tr *TaskRunner) alloc() *structs.Allocation {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.updated != nil {
		return tr.updated
	}
	return tr.cfg.Alloc
}

// Update takes a newer version of the allocation (an in-place update from
// the server). When the task runs and its cpu or memory changed, a driver
// with Capabilities.UpdateResources applies them to the running task
// (event "Resources Updated", "Task resources updated"); with another
// driver, or when the driver fails, the new limits apply at the next start
// of the task and the event says so. The task's environment
// (NOMAD_CPU_LIMIT, NOMAD_MEMORY_LIMIT) keeps the values it started with.
func (tr *TaskRunner) Update(alloc *structs.Allocation) {
	var node *structs.Node
	if tr.cfg.Node != nil {
		node = tr.cfg.Node()
	}
	res := nodeTaskResources(alloc, tr.cfg.Task, node)
	tr.mu.Lock()
	tr.updated = alloc
	h := tr.handle
	tr.mu.Unlock()
	if h == nil || h.Config == nil || h.Config.Resources.Equal(res) || tr.IsDead() {
		return
	}
	id := h.Config.ID
	ev := structs.NewTaskEvent(structs.TaskResourcesUpdated, tr.now())
	msg := "Task resources updated"
	if err := tr.updateDriver(id, &res); err != nil {
		tr.logger.Warn("new resources apply at the next restart", "reason", err)
		ev.Details["error"] = err.Error()
		msg = fmt.Sprintf("New resources apply at the next restart: %v", err)
	} else {
		tr.mu.Lock()
		if tr.handle == h { // the running task now has res
			nh, nc := *h, *h.Config
			nc.Resources = res
			nh.Config = &nc
			tr.handle = &nh
		}
		tr.mu.Unlock()
	}
	ev.Details["cpu"] = fmt.Sprint(res.CPUShares)
	ev.Details["memory_mb"] = fmt.Sprint(res.MemoryMB)
	ev.Details["memory_max_mb"] = fmt.Sprint(res.MemoryMaxMB)
	tr.emit(ev, msg, nil)
	tr.persist()
}

// updateDriver calls the driver's UpdateTask when it has the capability.
func (tr *TaskRunner) updateDriver(id string, res *base.Resources) error {
	c, ok := tr.cfg.Driver.(capabler)
	u, ok2 := tr.cfg.Driver.(base.ResourceUpdater)
	if !ok || !ok2 {
		return fmt.Errorf("driver %q cannot update a running task's resources", tr.cfg.Task.Driver)
	}
	caps, err := c.Capabilities()
	if err != nil {
		return fmt.Errorf("driver capabilities: %w", err)
	}
	if !caps.UpdateResources {
		return fmt.Errorf("driver %q cannot update a running task's resources", tr.cfg.Task.Driver)
	}
	return u.UpdateTask(id, res)
}
