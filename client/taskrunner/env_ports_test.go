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
