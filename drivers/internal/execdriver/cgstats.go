package execdriver

import "strconv"

// readUsage samples the task: from its cgroups when it has some (every
// process of the task, whatever its process group), else from its process
// group in /proc.
func (t *task) readUsage() groupUsage {
	if len(t.state.Cgroups) == 0 {
		return readGroupUsage(t.state.Pid)
	}
	return readCgroupUsage(t.state.Cgroups, t.state.CgroupV2)
}

// readCgroupUsage sums the task's cgroups: processes from cgroup.procs,
// memory from memory.stat (v1 total_rss and total_swap; v2 anon and
// memory.swap.current), CPU time from cpu.stat (v2) or the processes' own
// counters (v1, where the task has no cpuacct cgroup; time of exited
// processes is then not counted).
func readCgroupUsage(paths []string, v2 bool) groupUsage {
	var u groupUsage
	mem := paths[0] // v1: memory comes first; v2: the only one
	pids := cgroupPids(mem)
	u.pids = len(pids)
	if v2 {
		anon, _ := cgStatValue(mem, "memory.stat", "anon")
		u.rss = uint64(max(anon, 0))
		if b := readCgString(mem, "memory.swap.current"); b != "" {
			u.swap, _ = strconv.ParseUint(b, 10, 64)
		}
		user, _ := cgStatValue(mem, "cpu.stat", "user_usec")
		sys, _ := cgStatValue(mem, "cpu.stat", "system_usec")
		u.uticks = uint64(max(user, 0)) * clockTicks / 1e6
		u.sticks = uint64(max(sys, 0)) * clockTicks / 1e6
		return u
	}
	rss, _ := cgStatValue(mem, "memory.stat", "total_rss")
	swap, _ := cgStatValue(mem, "memory.stat", "total_swap")
	u.rss, u.swap = uint64(max(rss, 0)), uint64(max(swap, 0))
	for _, pid := range pids {
		if st, err := readProcStat(pid); err == nil {
			u.uticks += st.UTime
			u.sticks += st.STime
		}
	}
	return u
}
