package mock

import (
	"github.com/nomadish/nomadish/drivers/base"
)

var _ base.ResourceUpdater = (*Driver)(nil)

// UpdateTask records the task's new resources (Updates returns them); the
// mock enforces nothing.
func (d *Driver) UpdateTask(taskID string, res *base.Resources) error {
	if _, err := d.tasks.Get(taskID); err != nil {
		return err
	}
	d.logger.Debug("task resources updated", "task_id", taskID)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.updates == nil {
		d.updates = map[string][]base.Resources{}
	}
	if res != nil {
		d.updates[taskID] = append(d.updates[taskID], *res)
	}
	return nil
}

// Updates returns the resources UpdateTask received for the task, oldest
// first.
func (d *Driver) Updates(taskID string) []base.Resources {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]base.Resources(nil), d.updates[taskID]...)
}
