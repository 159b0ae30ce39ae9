package taskrunner_test

import (
	"testing"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// TestBuildEnvCompleteList checks every Nomad runtime variable of the
// issue, and the same names in ${...} in env and config.
func TestBuildEnvCompleteList(t *testing.T) {
	task := &structs.Task{Name: "web", Driver: "mock",
		Resources: &structs.Resources{CPU: 300, MemoryMB: 128, MemoryMaxMB: 256},
		Meta:      map[string]string{"owner": "task", "Tier": "gold"},
		Env: map[string]string{
			"GREETING": "${NOMAD_META_owner}-${NOMAD_META_OWNER}-${NOMAD_ALLOC_INDEX}-${NOMAD_META_rack-id}",
			"PARENT":   "${NOMAD_JOB_PARENT_ID}",
		},
		Config: map[string]any{"args": []any{"--index=${NOMAD_ALLOC_INDEX}", "--zone=${NOMAD_META_zone}"}},
	}
	job := &structs.Job{ID: "web/periodic-1700000000", ParentID: "web", Name: "web/periodic-1700000000", Type: "service",
		Meta: map[string]string{"owner": "job", "zone": "z1", "rack-id": "r7"},
		TaskGroups: []*structs.TaskGroup{{Name: "front", Count: 3, Tasks: []*structs.Task{task},
			Meta: map[string]string{"owner": "group", "zone": "z2"}}}}
	job.Canonicalize()
	alloc := &structs.Allocation{ID: "0123456789abcdef", Name: "web/periodic-1700000000.front[2]", JobID: job.ID, Job: job,
		TaskGroup: "front", Namespace: "prod", AllocatedResources: structs.AllocatedFor(job.TaskGroups[0])}
	alloc.AllocatedResources.Tasks["web"].Cpu.ReservedCores = []uint16{2, 3}
	alloc.AllocatedResources.Shared.Ports = []structs.AllocatedPortMapping{{Label: "http", Value: 25000, To: 8080, HostIP: "127.0.0.1"}}
	dir := allocdir.New(t.TempDir(), alloc.ID)
	cfg := taskrunner.BuildTaskConfig("id", alloc, task, dir, "eu", "dc7", nil)
	env := cfg.Env
	td := dir.TaskDir("web")
	want := map[string]string{
		"NOMAD_ALLOC_ID": alloc.ID, "NOMAD_ALLOC_NAME": alloc.Name, "NOMAD_ALLOC_INDEX": "2",
		"NOMAD_SHORT_ALLOC_ID": "01234567",
		"NOMAD_JOB_ID":         job.ID, "NOMAD_JOB_NAME": job.Name, "NOMAD_JOB_PARENT_ID": "web",
		"NOMAD_GROUP_NAME": "front", "NOMAD_TASK_NAME": "web", "NOMAD_NAMESPACE": "prod",
		"NOMAD_REGION": "eu", "NOMAD_DC": "dc7",
		"NOMAD_CPU_LIMIT": "300", "NOMAD_MEMORY_LIMIT": "128", "NOMAD_MEMORY_MAX_LIMIT": "256", "NOMAD_CPU_CORES": "2,3",
		"NOMAD_ALLOC_DIR": dir.SharedDir, "NOMAD_TASK_DIR": td.LocalDir, "NOMAD_SECRETS_DIR": td.SecretsDir,
		"NOMAD_ADDR_http": "127.0.0.1:25000", "NOMAD_IP_http": "127.0.0.1", "NOMAD_PORT_http": "8080",
		"NOMAD_HOST_PORT_http": "25000",
		// job, group and task meta merged, the task's winning; each key
		// upper-cased and as written; '-' becomes '_' in a variable name.
		"NOMAD_META_owner": "task", "NOMAD_META_OWNER": "task", "NOMAD_META_zone": "z2", "NOMAD_META_ZONE": "z2",
		"NOMAD_META_Tier": "gold", "NOMAD_META_TIER": "gold", "NOMAD_META_rack_id": "r7", "NOMAD_META_RACK_ID": "r7",
		"GREETING": "task-task-2-r7", "PARENT": "web",
	}
	for k, v := range want {
		if got, ok := env[k]; !ok || got != v {
			t.Errorf("%s = %q (set %v), want %q", k, got, ok, v)
		}
	}
	args, _ := cfg.Config["args"].([]any)
	if len(args) != 2 || args[0] != "--index=2" || args[1] != "--zone=z2" {
		t.Errorf("config args %v", args)
	}
}

// Without a parent, memory_max or meta, Nomad leaves those variables out.
func TestBuildEnvOptionalVarsAbsent(t *testing.T) {
	task := &structs.Task{Name: "t", Driver: "mock"}
	alloc := testAlloc(structs.JobTypeService, task, nil)
	env := taskrunner.BuildEnv(alloc, task, allocdir.New(t.TempDir(), alloc.ID), "global", "dc1", nil)
	for _, k := range []string{"NOMAD_JOB_PARENT_ID", "NOMAD_MEMORY_MAX_LIMIT", "NOMAD_CPU_CORES"} {
		if v, ok := env[k]; ok {
			t.Errorf("%s = %q, want unset", k, v)
		}
	}
}
