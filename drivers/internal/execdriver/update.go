package execdriver

import (
	"github.com/nomadish/nomadish/drivers/base"
)

var _ base.ResourceUpdater = (*Driver)(nil)

// UpdateTask applies new limits to a running task: with cgroups (exec) it
// rewrites the memory limits (memory_max when above memory, with memory as
// soft limit, as at start), the cpu weight and, when the task was started
// with reserved cores, its cpuset.cpus (a task started without cores gets
// no cpuset later); without cgroups (raw_exec) it is a no-op. Lowering the
// memory limit below what the task uses fails (cgroup v1 answers EBUSY) and
// leaves the old limit.
func (d *Driver) UpdateTask(taskID string, res *base.Resources) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	if res == nil || len(t.state.Cgroups) == 0 {
		return nil
	}
	d.logger.Debug("updating task resources", "task_id", taskID, "cpu_shares", res.CPUShares,
		"memory_mb", res.MemoryMB, "memory_max_mb", res.MemoryMaxMB)
	return updateCgroups(t.state.Cgroups, t.state.CgroupV2, *res)
}
