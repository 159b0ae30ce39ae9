package full

import "github.com/nomadish/nomadish/structs"

// allocsAnswer is what a simulated node reads of Alloc.GetAllocs' answer:
// the same RPC and bytes as the real client's, decoded into only the
// fields the node acts on. The decoder skips the rest (each allocation's
// job spec, resources and placement metrics) without building it, which
// was a third of the fleet's CPU: the fleet shares the machine with the
// servers it measures.
type allocsAnswer struct {
	Allocs []*simAlloc
	structs.QueryMeta
}

type simAlloc struct {
	ID               string
	JobID            string
	TaskGroup        string
	DesiredStatus    string
	ClientStatus     string
	AllocModifyIndex uint64
	Job              *simJobSpec
}

type simJobSpec struct {
	Type       string
	TaskGroups []struct {
		Name  string
		Tasks []struct{ Name string }
	}
}

// clientTerminal is structs.Allocation.ClientTerminalStatus.
func (a *simAlloc) clientTerminal() bool {
	switch a.ClientStatus {
	case structs.AllocClientStatusComplete, structs.AllocClientStatusFailed, structs.AllocClientStatusLost:
		return true
	}
	return false
}

// taskNames are the names of the tasks of the allocation's group.
func (a *simAlloc) taskNames() []string {
	if a.Job == nil {
		return nil
	}
	for _, tg := range a.Job.TaskGroups {
		if tg.Name == a.TaskGroup {
			names := make([]string, 0, len(tg.Tasks))
			for _, t := range tg.Tasks {
				names = append(names, t.Name)
			}
			return names
		}
	}
	return nil
}
