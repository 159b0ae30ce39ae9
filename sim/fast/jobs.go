package fast

import (
	"fmt"

	"github.com/nomadish/nomadish/sim/trace"
	"github.com/nomadish/nomadish/structs"
)

// checkJob reports a trace job the simulator cannot submit.
func checkJob(j trace.Job) error {
	switch {
	case j.ID == "":
		return fmt.Errorf("empty id")
	case j.Type != structs.JobTypeService && j.Type != structs.JobTypeBatch:
		return fmt.Errorf("type %q, want service or batch", j.Type)
	case j.Count < 0:
		return fmt.Errorf("count %d is negative", j.Count)
	case j.Priority < 0 || j.Priority > 100:
		return fmt.Errorf("priority %d, want 1-100", j.Priority)
	case j.CPU < 0 || j.MemoryMB < 0 || j.Cores < 0:
		return fmt.Errorf("negative cpu, memory or cores")
	case j.Arrival < 0 || j.Duration < 0:
		return fmt.Errorf("negative arrival or duration")
	}
	switch j.NUMA {
	case "", structs.NUMAAffinityNone, structs.NUMAAffinityPrefer, structs.NUMAAffinityRequire:
	default:
		return fmt.Errorf("numa %q, want none, prefer or require", j.NUMA)
	}
	return nil
}

// toJob is the Nomad job a trace job stands for: one group of Count
// allocations of one raw_exec task asking the job's resources, in every
// datacenter, without an update block (fast mode has no deployments).
func toJob(j trace.Job) *structs.Job {
	res := &structs.Resources{CPU: j.CPU, MemoryMB: j.MemoryMB, Cores: j.Cores}
	if j.Cores > 0 {
		res.CPU = 0
		if j.NUMA != "" {
			res.NUMA = &structs.NUMA{Affinity: j.NUMA}
		}
	}
	if res.MemoryMB == 0 {
		res.MemoryMB = structs.DefaultMemoryMB
	}
	if res.CPU == 0 && res.Cores == 0 {
		res.CPU = structs.DefaultCPU
	}
	tg := &structs.TaskGroup{
		Name: "g", Count: j.Count,
		Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec", Resources: res}},
	}
	for _, c := range j.Constraints {
		tg.Constraints = append(tg.Constraints, &structs.Constraint{LTarget: c.Attribute, RTarget: c.Value, Operand: c.Operator})
	}
	for _, s := range j.Spread {
		w := s.Weight
		if w <= 0 || w > 100 {
			w = 50
		}
		tg.Spreads = append(tg.Spreads, &structs.Spread{Attribute: s.Attribute, Weight: int8(w)})
	}
	job := &structs.Job{
		ID: j.ID, Name: j.ID, Namespace: structs.DefaultNamespaceName, Type: j.Type, Priority: j.Priority,
		Datacenters: []string{"*"}, TaskGroups: []*structs.TaskGroup{tg},
	}
	job.Canonicalize()
	job.Update = nil
	for _, g := range job.TaskGroups {
		g.Update = nil
	}
	return job
}
