package fsm

import "github.com/nomadish/nomadish/structs"

// mockJob and mockNode are the server package's test fixtures (the FSM
// tests moved here with the FSM, and their rows must stay the same).
func mockJob(id string) *structs.Job {
	return &structs.Job{ID: id, Type: structs.JobTypeService, Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{Name: "web", Count: 1, Tasks: []*structs.Task{{
			Name: "t", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []any{"10"}},
			Resources: &structs.Resources{CPU: 100, MemoryMB: 64},
		}}}}}
}

func mockNode(id string) *structs.Node {
	return &structs.Node{
		ID: id, SecretID: "secret-" + id, Name: id, Datacenter: "dc1", NodePool: "default",
		Attributes: map[string]string{"kernel.name": "linux", "driver.raw_exec": "1"},
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: 4000, TotalCpuCores: 4},
			Memory: structs.NodeMemoryResources{MemoryMB: 8192},
			Disk:   structs.NodeDiskResources{DiskMB: 100000},
		},
		Drivers: map[string]*structs.DriverInfo{"raw_exec": {Detected: true, Healthy: true}},
	}
}
