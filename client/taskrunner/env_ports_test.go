package taskrunner_test

import (
	"testing"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

func TestBuildEnvPorts(t *testing.T) {
	alloc := &structs.Allocation{ID: "a1", Name: "web.web[0]", JobID: "web", TaskGroup: "web",
		AllocatedResources: &structs.AllocatedResources{Shared: structs.AllocatedSharedResources{Ports: []structs.AllocatedPortMapping{
			{Label: "http", Value: 23456, HostIP: "10.0.0.7"},
			{Label: "db-admin", Value: 8080, To: 80, HostIP: "10.0.0.7"},
		}}}}
	task := &structs.Task{Name: "t", Env: map[string]string{"LISTEN": "${NOMAD_ADDR_http}", "TO": "port ${NOMAD_PORT_db_admin}"}}
	env := taskrunner.BuildEnv(alloc, task, allocdir.New(t.TempDir(), "a1"), "global", "dc1", nil)
	want := map[string]string{
		"NOMAD_PORT_http": "23456", "NOMAD_HOST_PORT_http": "23456", "NOMAD_ALLOC_PORT_http": "23456",
		"NOMAD_IP_http": "10.0.0.7", "NOMAD_HOST_IP_http": "10.0.0.7",
		"NOMAD_ADDR_http": "10.0.0.7:23456", "NOMAD_HOST_ADDR_http": "10.0.0.7:23456",
		"NOMAD_PORT_db_admin": "80", "NOMAD_ALLOC_PORT_db_admin": "80", "NOMAD_HOST_PORT_db_admin": "8080",
		"NOMAD_ADDR_db_admin": "10.0.0.7:8080", "LISTEN": "10.0.0.7:23456", "TO": "port 80",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
}

// TestBuildEnvPortsBridge: in a group namespace, NOMAD_PORT is the `to`
// port inside, NOMAD_HOST_PORT the mapped host port, and NOMAD_ALLOC_* name
// the allocation's own address (Nomad's bridge-mode variables).
func TestBuildEnvPortsBridge(t *testing.T) {
	alloc := &structs.Allocation{ID: "a1", Name: "web.web[0]", JobID: "web", TaskGroup: "web",
		NetworkStatus: &structs.AllocNetworkStatus{InterfaceName: "eth0", Address: "172.26.64.5"},
		AllocatedResources: &structs.AllocatedResources{Shared: structs.AllocatedSharedResources{Ports: []structs.AllocatedPortMapping{
			{Label: "http", Value: 25001, To: 8080, HostIP: "10.0.0.7"},
			{Label: "same", Value: 25002, To: -1, HostIP: "10.0.0.7"},
		}}}}
	env := taskrunner.BuildEnv(alloc, &structs.Task{Name: "t"}, allocdir.New(t.TempDir(), "a1"), "global", "dc1", nil)
	want := map[string]string{
		"NOMAD_PORT_http": "8080", "NOMAD_HOST_PORT_http": "25001", "NOMAD_ALLOC_PORT_http": "8080",
		"NOMAD_HOST_ADDR_http": "10.0.0.7:25001", "NOMAD_ALLOC_IP_http": "172.26.64.5",
		"NOMAD_ALLOC_ADDR_http": "172.26.64.5:8080", "NOMAD_ALLOC_INTERFACE_http": "eth0",
		// to = -1: the same port inside as outside
		"NOMAD_PORT_same": "25002", "NOMAD_ALLOC_ADDR_same": "172.26.64.5:25002",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
}
