package clienttest

import (
	"fmt"

	"github.com/nomadish/nomadish/drivers/base"
)

// Capabilities says the fake can update a running task's resources.
func (d *FakeDriver) Capabilities() (*base.Capabilities, error) {
	return &base.Capabilities{SendSignals: true, FSIsolation: base.FSIsolationNone, UpdateResources: true}, nil
}

// UpdateTask records "update <id> cpu=<n> mem=<n> max=<n>"; an unknown or
// exited task is base.ErrTaskNotFound.
func (d *FakeDriver) UpdateTask(id string, res *base.Resources) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.tasks[id]
	if t == nil {
		return fmt.Errorf("task %q: %w", id, base.ErrTaskNotFound)
	}
	d.record("update %s cpu=%d mem=%d max=%d", id, res.CPUShares, res.MemoryMB, res.MemoryMaxMB)
	return nil
}
