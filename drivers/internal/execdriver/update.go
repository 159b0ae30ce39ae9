package execdriver

import (
	"path/filepath"

	"github.com/nomadish/nomadish/drivers/base"
)

var _ base.ResourceUpdater = (*Driver)(nil)

// UpdateTask applies new limits to a running task: with cgroups (exec as
// root) it rewrites the memory limit (memory_max when above memory, with
// memory as soft limit, as setupCgroups does) and cpu.shares of the task's
// cgroups; without (raw_exec, or exec where cgroups are unusable) nothing is
// enforced and it is a no-op. Lowering the memory limit below what the task
// uses fails (the kernel answers EBUSY) and leaves the old limit.
func (d *Driver) UpdateTask(taskID string, res *base.Resources) error {
	t, err := d.task(taskID)
	if err != nil {
		return err
	}
	if res == nil || len(t.state.Cgroups) == 0 {
		return nil
	}
	d.logger.Debug("updating task resources", "task_id", taskID, "cpu_shares", res.CPUShares,
		"memory_mb", res.MemoryMB, "memory_max_mb", res.MemoryMaxMB)
	return updateCgroups(t.state.Cgroups, *res)
}

// updateCgroups writes res into the task's cgroups (the paths setupCgroups
// returned).
func updateCgroups(paths []string, res base.Resources) error {
	for _, p := range paths {
		switch filepath.Base(filepath.Dir(filepath.Dir(p))) {
		case "memory":
			if err := setMemoryLimits(p, res); err != nil {
				return err
			}
		case "cpu":
			if res.CPUShares > 0 {
				if err := writeCg(p, "cpu.shares", max(res.CPUShares, 2)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// setMemoryLimits sets memory.limit_in_bytes and the soft limit (-1, none,
// without memory_max).
func setMemoryLimits(dir string, res base.Resources) error {
	hard, soft := res.MemoryMB, int64(-1)
	if res.MemoryMaxMB > res.MemoryMB {
		hard, soft = res.MemoryMaxMB, res.MemoryMB<<20
	}
	if hard <= 0 {
		return nil
	}
	if err := writeCg(dir, "memory.limit_in_bytes", hard<<20); err != nil {
		return err
	}
	return writeCg(dir, "memory.soft_limit_in_bytes", soft)
}
