package schedulertest

import (
	"github.com/nomadish/nomadish/structs"
)

// Node returns a ready, eligible node whose ID and name are id, with the
// raw_exec and mock drivers detected and healthy.
func Node(id, dc string, cpu, memMB int64) *structs.Node {
	return &structs.Node{
		ID: id, Name: id, Datacenter: dc, NodePool: "default",
		Status: structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes: map[string]string{},
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: cpu},
			Memory: structs.NodeMemoryResources{MemoryMB: memMB},
			Disk:   structs.NodeDiskResources{DiskMB: 100 * 1024},
		},
		Drivers: map[string]*structs.DriverInfo{
			"raw_exec": {Detected: true, Healthy: true},
			"mock":     {Detected: true, Healthy: true},
		},
	}
}

// Job returns a canonicalized job of the given type with one group, named
// like the job, of count tasks "task" each asking cpu MHz and memMB using
// driver raw_exec, in every datacenter.
func Job(id, typ string, count, cpu, memMB int) *structs.Job {
	j := &structs.Job{
		ID: id, Type: typ, Datacenters: []string{"*"},
		TaskGroups: []*structs.TaskGroup{{
			Name: id, Count: count,
			Tasks: []*structs.Task{{Name: "task", Driver: "raw_exec", Resources: &structs.Resources{CPU: cpu, MemoryMB: memMB}}},
		}},
	}
	j.Canonicalize()
	return j
}

// Eval returns a pending eval of the job with the given ID and trigger.
func Eval(id string, job *structs.Job, trigger string) *structs.Evaluation {
	return &structs.Evaluation{
		ID: id, Namespace: job.Namespace, Priority: job.Priority, Type: job.Type,
		TriggeredBy: trigger, JobID: job.ID, JobModifyIndex: job.JobModifyIndex,
		Status: structs.EvalStatusPending,
	}
}
