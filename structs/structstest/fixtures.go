// Package structstest holds the data-model fixtures the server's tests
// share (server, server/fsm, server/endpoints): a one-task raw_exec service
// job and a ready raw_exec node, the same everywhere so that tests moved
// between packages keep their rows.
package structstest

import "github.com/nomadish/nomadish/structs"

// Job returns a service job with one group "web" of one raw_exec task "t"
// (100 MHz, 64 MB) in dc1.
func Job(id string) *structs.Job {
	return &structs.Job{ID: id, Type: structs.JobTypeService, Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{Name: "web", Count: 1, Tasks: []*structs.Task{{
			Name: "t", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []any{"10"}},
			Resources: &structs.Resources{CPU: 100, MemoryMB: 64},
		}}}}}
}

// Node returns a ready linux node in dc1 with 4 cores (4000 MHz), 8 GiB and
// a healthy raw_exec driver; its SecretID is "secret-" + id.
func Node(id string) *structs.Node {
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
