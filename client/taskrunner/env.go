package taskrunner

import (
	"slices"
	"strconv"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// BuildEnv returns the task's environment: its own env plus Nomad's
// NOMAD_* variables describing the allocation, task and directories.
// The NOMAD_* variables win over the task's env. The task's env values are
// interpolated (Interpolate) against that environment, then nodeVals
// (NodeValues), so `FOO = "${NOMAD_ALLOC_ID}-${attr.kernel.name}"` works.
func BuildEnv(alloc *structs.Allocation, task *structs.Task, dir *allocdir.AllocDir, region, dc string, nodeVals map[string]string) map[string]string {
	nomad := nomadEnv(alloc, task, dir, region, dc)
	raw := make(map[string]string, len(task.Env)+len(nomad))
	for k, v := range task.Env {
		raw[k] = v
	}
	for k, v := range nomad {
		raw[k] = v
	}
	env := make(map[string]string, len(raw))
	for k, v := range raw {
		if _, ok := nomad[k]; !ok {
			v = Interpolate(v, raw, nodeVals)
		}
		env[k] = v
	}
	return env
}

// nomadEnv returns the NOMAD_* variables of a task.
func nomadEnv(alloc *structs.Allocation, task *structs.Task, dir *allocdir.AllocDir, region, dc string) map[string]string {
	env := make(map[string]string, 16)
	td := dir.TaskDir(task.Name)
	env["NOMAD_ALLOC_DIR"] = dir.SharedDir
	env["NOMAD_TASK_DIR"] = td.LocalDir
	env["NOMAD_SECRETS_DIR"] = td.SecretsDir
	env["NOMAD_ALLOC_ID"] = alloc.ID
	env["NOMAD_ALLOC_NAME"] = alloc.Name
	env["NOMAD_ALLOC_INDEX"] = strconv.FormatUint(uint64(alloc.Index()), 10)
	env["NOMAD_JOB_ID"] = alloc.JobID
	env["NOMAD_GROUP_NAME"] = alloc.TaskGroup
	env["NOMAD_TASK_NAME"] = task.Name
	env["NOMAD_NAMESPACE"] = alloc.Namespace
	env["NOMAD_DC"] = dc
	env["NOMAD_REGION"] = region
	if alloc.Job != nil {
		env["NOMAD_JOB_NAME"] = alloc.Job.Name
	} else {
		env["NOMAD_JOB_NAME"] = alloc.JobID
	}
	res := taskResources(alloc, task)
	env["NOMAD_CPU_LIMIT"] = strconv.FormatInt(res.CPUShares, 10)
	env["NOMAD_MEMORY_LIMIT"] = strconv.FormatInt(res.MemoryMB, 10)
	if len(res.Cores) > 0 {
		env["NOMAD_CPU_CORES"] = res.CoreList()
	}
	portEnv(env, alloc) // env_ports.go
	return env
}

// taskResources returns the task's CPU MHz, memory MB and memory max MB, from
// the allocation when it holds them, else from the task's ask.
func taskResources(alloc *structs.Allocation, task *structs.Task) base.Resources {
	if ar := alloc.AllocatedResources; ar != nil {
		if tr := ar.Tasks[task.Name]; tr != nil {
			return base.Resources{CPUShares: tr.Cpu.CpuShares, MemoryMB: tr.Memory.MemoryMB,
				MemoryMaxMB: tr.Memory.MemoryMaxMB, Cores: slices.Clone(tr.Cpu.ReservedCores)}
		}
	}
	if r := task.Resources; r != nil {
		return base.Resources{CPUShares: int64(r.CPU), MemoryMB: int64(r.MemoryMB), MemoryMaxMB: int64(r.MemoryMaxMB)}
	}
	return base.Resources{CPUShares: structs.DefaultCPU, MemoryMB: structs.DefaultMemoryMB}
}

// nodeTaskResources is taskResources with NUMANodes: the NUMA nodes of the
// reserved cores in node's topology (none without cores or topology), so
// drivers bind the task's memory to them (cpuset.mems, CpusetMems, qemu).
func nodeTaskResources(alloc *structs.Allocation, task *structs.Task, node *structs.Node) base.Resources {
	res := taskResources(alloc, task)
	if len(res.Cores) == 0 || node == nil || node.NodeResources == nil || node.NodeResources.Processors.Topology == nil {
		return res
	}
	byCore := map[uint16]uint16{}
	for _, c := range node.NodeResources.Processors.Topology.Cores {
		byCore[c.ID] = uint16(c.NodeID)
	}
	seen := map[uint16]bool{}
	for _, c := range res.Cores {
		if n, ok := byCore[c]; ok && !seen[n] {
			seen[n] = true
			res.NUMANodes = append(res.NUMANodes, n)
		}
	}
	slices.Sort(res.NUMANodes)
	return res
}

// BuildTaskConfig returns what the driver gets to start the task; id is the
// driver's task ID and node the client's node (nil: no node values). The
// task's config (every string, through nested maps and lists), env values
// and user are interpolated with the task's environment and the node's
// values (NodeValues); task.Config is not modified. The logs block sets the
// rotation; `disabled = true` leaves StdoutPath and StderrPath empty, which
// every driver honours by sending the streams to /dev/null (no log files,
// as Nomad's logs.disabled).
func BuildTaskConfig(id string, alloc *structs.Allocation, task *structs.Task, dir *allocdir.AllocDir, region, dc string, node *structs.Node) *base.TaskConfig {
	jobName := alloc.JobID
	if alloc.Job != nil {
		jobName = alloc.Job.Name
	}
	nodeVals := NodeValues(node, region)
	env := BuildEnv(alloc, task, dir, region, dc, nodeVals)
	cfg := &base.TaskConfig{
		ID:            id,
		JobName:       jobName,
		TaskGroupName: alloc.TaskGroup,
		Name:          task.Name,
		AllocID:       alloc.ID,
		Env:           env,
		User:          Interpolate(task.User, env, nodeVals),
		Config:        InterpolateConfig(task.Config, env, nodeVals),
		Resources:     nodeTaskResources(alloc, task, node),
		AllocDir:      dir.SharedDir,
		TaskDir:       dir.TaskDir(task.Name).Dir,
		StdoutPath:    dir.LogPath(task.Name, "stdout"),
		StderrPath:    dir.LogPath(task.Name, "stderr"),
		Mounts:        taskMountsOrNil(alloc, task, node), // volumes.go
	}
	if lc := task.LogConfig; lc != nil {
		cfg.LogMaxFiles, cfg.LogMaxFileSizeMB = lc.MaxFiles, lc.MaxFileSizeMB
		if lc.Disabled {
			cfg.StdoutPath, cfg.StderrPath = "", ""
		}
	}
	return cfg
}
