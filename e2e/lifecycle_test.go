package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// lifecycleJob: a prestart task writes a file into the alloc dir after a
// second; the main task reads it, saves its environment and runs until
// stopped; a poststop task records that it ran after main stopped.
func lifecycleJob(id string) string {
	return fmt.Sprintf(`job %q {
  meta {
    owner = "job"
    zone  = "z1"
  }
  group "g" {
    meta { owner = "group" }
    shutdown_delay = "1s"
    network {
      port "http" {}
    }
    task "init" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "sleep 1; echo prestart-$NOMAD_ALLOC_INDEX > $NOMAD_ALLOC_DIR/prestart.txt"]
      }
      resources { memory = 32 }
    }
    task "main" {
      driver       = "raw_exec"
      kill_timeout = "5s"
      kill_signal  = "SIGUSR1"
      meta { owner = "task" }
      env {
        GREETING = "hello-${NOMAD_META_owner}-${NOMAD_ALLOC_INDEX}"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "cat $NOMAD_ALLOC_DIR/prestart.txt > $NOMAD_ALLOC_DIR/main-saw.txt || echo missing > $NOMAD_ALLOC_DIR/main-saw.txt; env > $NOMAD_ALLOC_DIR/main-env.txt; trap 'echo usr1 > $NOMAD_ALLOC_DIR/main-signal.txt; exit 0' USR1; while true; do sleep 0.1; done"]
      }
      resources {
        memory     = 32
        memory_max = 64
      }
    }
    task "cleanup" {
      driver = "raw_exec"
      lifecycle {
        hook = "poststop"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "cat $NOMAD_ALLOC_DIR/main-signal.txt > $NOMAD_ALLOC_DIR/poststop.txt 2>&1 || echo no-signal-file > $NOMAD_ALLOC_DIR/poststop.txt"]
      }
      resources { memory = 32 }
    }
  }
}
`, id)
}

// TestLifecyclePrestartPoststopEnv runs lifecycleJob on the dev agent: the
// main task saw the prestart task's file, its environment holds every
// NOMAD_* variable, the job's JSON keeps the lifecycle fields for the
// official client, and after `job stop` the main task got its kill signal
// before the poststop task ran.
func TestLifecyclePrestartPoststopEnv(t *testing.T) {
	id := uniqueID("e2e-lifecycle")
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "lifecycle.nomad.hcl", lifecycleJob(id))); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocID := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })[0].ID
	cat := func(path string) string {
		r := nomadish(t, "alloc", "fs", allocID, path)
		if r.code != 0 {
			return ""
		}
		return r.out
	}
	eventually(t, 30*time.Second, "main wrote its env", func() (bool, string) {
		env := cat("alloc/main-env.txt")
		return strings.Contains(env, "GREETING="), env
	})
	if got := strings.TrimSpace(cat("alloc/main-saw.txt")); got != "prestart-0" {
		t.Fatalf("main saw %q, want the prestart task's file", got)
	}
	checkLifecycleEnv(t, allocID, cat("alloc/main-env.txt"))
	checkLifecycleAPI(t, id, allocID)
	if r := nomadish(t, "alloc", "status", allocID); r.code != 0 || !strings.Contains(r.out, `Task "init" (prestart) is "dead"`) ||
		!strings.Contains(r.out, `Task "cleanup" (poststop) is "pending"`) || !strings.Contains(r.out, "Waiting for the other tasks to stop") {
		t.Errorf("alloc status: %v", r)
	}

	if r := nomadish(t, "job", "stop", "-detach", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "the poststop task ran", func() (bool, string) {
		out := cat("alloc/poststop.txt")
		return out != "", out
	})
	if got := strings.TrimSpace(cat("alloc/poststop.txt")); got != "usr1" {
		t.Fatalf("poststop saw %q: main did not get its kill_signal before poststop ran", got)
	}
	waitAllocs(t, id, 1, "complete", func(a allocRow) bool { return a.ClientStatus == "complete" })
}

// checkLifecycleEnv checks the main task's environment (the output of env).
func checkLifecycleEnv(t *testing.T, allocID, env string) {
	t.Helper()
	vars := map[string]string{}
	for _, line := range strings.Split(env, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = v
		}
	}
	want := map[string]string{
		"NOMAD_ALLOC_ID": allocID, "NOMAD_ALLOC_INDEX": "0", "NOMAD_GROUP_NAME": "g", "NOMAD_TASK_NAME": "main",
		"NOMAD_NAMESPACE": "default", "NOMAD_REGION": "global", "NOMAD_MEMORY_LIMIT": "32",
		"NOMAD_MEMORY_MAX_LIMIT": "64", "NOMAD_META_owner": "task", "NOMAD_META_OWNER": "task",
		"NOMAD_META_zone": "z1", "NOMAD_META_ZONE": "z1", "GREETING": "hello-task-0",
	}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s = %q, want %q", k, vars[k], v)
		}
	}
	for _, k := range []string{"NOMAD_ALLOC_NAME", "NOMAD_JOB_ID", "NOMAD_JOB_NAME", "NOMAD_DC", "NOMAD_CPU_LIMIT",
		"NOMAD_ALLOC_DIR", "NOMAD_TASK_DIR", "NOMAD_SECRETS_DIR", "NOMAD_ADDR_http", "NOMAD_IP_http",
		"NOMAD_PORT_http", "NOMAD_HOST_PORT_http"} {
		if vars[k] == "" {
			t.Errorf("%s missing from the task's environment", k)
		}
	}
	if vars["NOMAD_ADDR_http"] != vars["NOMAD_IP_http"]+":"+vars["NOMAD_HOST_PORT_http"] {
		t.Errorf("NOMAD_ADDR_http %q is not ip:host port", vars["NOMAD_ADDR_http"])
	}
}

// checkLifecycleAPI reads the job and the allocation with Nomad's official
// client: the lifecycle, shutdown delays and kill signal survive, and the
// prestart task is dead and successful while the allocation runs.
func checkLifecycleAPI(t *testing.T, jobID, allocID string) {
	t.Helper()
	c, err := api.NewClient(&api.Config{Address: dev.addr})
	if err != nil {
		t.Fatal(err)
	}
	job, _, err := c.Jobs().Info(jobID, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg := job.TaskGroups[0]
	if tg.ShutdownDelay == nil || *tg.ShutdownDelay != time.Second {
		t.Errorf("group ShutdownDelay %v", tg.ShutdownDelay)
	}
	byName := map[string]*api.Task{}
	for _, task := range tg.Tasks {
		byName[task.Name] = task
	}
	if lc := byName["init"].Lifecycle; lc == nil || lc.Hook != "prestart" || lc.Sidecar {
		t.Errorf("init Lifecycle %+v", lc)
	}
	if lc := byName["cleanup"].Lifecycle; lc == nil || lc.Hook != "poststop" {
		t.Errorf("cleanup Lifecycle %+v", lc)
	}
	if m := byName["main"]; m.Lifecycle != nil || m.KillSignal != "SIGUSR1" || m.RestartPolicy == nil {
		t.Errorf("main %+v", m)
	}
	alloc, _, err := c.Allocations().Info(allocID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := alloc.TaskStates["init"]; s == nil || s.State != "dead" || s.Failed {
		t.Errorf("init state %+v", s)
	}
	if s := alloc.TaskStates["cleanup"]; s == nil || s.State != "pending" {
		t.Errorf("cleanup state %+v", s)
	}
	if alloc.ClientStatus != "running" {
		t.Errorf("alloc status %s", alloc.ClientStatus)
	}
}
