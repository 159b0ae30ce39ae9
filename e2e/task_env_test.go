package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/docker/dockertest"
)

// envJob runs `env` in a raw_exec, an exec and a docker task.
func envJob(id string) string {
	task := func(name, driver, extra string) string {
		return fmt.Sprintf(`    task %q {
      driver = %q
      config {
        %s
        command = "/bin/sh"
        args    = ["-c", "env; echo end-of-env"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
`, name, driver, extra)
	}
	return fmt.Sprintf("job %q {\n  type = \"batch\"\n  group \"g\" {\n%s%s%s  }\n}\n", id,
		task("raw", "raw_exec", ""), task("iso", "exec", ""), task("box", "docker", fmt.Sprintf("image = %q", dockertest.Image)))
}

// An agent started with the operator's NOMAD_TOKEN, NOMAD_ADDR and other
// credentials in its environment hands none of them to a task (raw_exec,
// exec, docker) nor to its driver plugins, and no task's environment holds
// the node's secret ID.
func TestTaskEnvHoldsNoAgentCredentials(t *testing.T) {
	ensureTestImage(t)
	const token = "s3cr3t-operator-token-e2e"
	leaks := map[string]string{"NOMAD_TOKEN": token, "NOMAD_ADDR": "http://127.0.0.1:4646", "NOMADISH_TOKEN": token,
		"CONSUL_HTTP_TOKEN": token, "VAULT_TOKEN": token}
	for k, v := range leaks {
		t.Setenv(k, v)
	}
	dir := agentsDir(t)
	a, err := startAgent(dir, true, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.stop)
	if err := a.waitReady(1, 30*time.Second); err != nil {
		t.Fatalf("%v\n%s", err, a.logTail())
	}
	secret, err := os.ReadFile(filepath.Join(dir, "data", "client", "secret-id"))
	if err != nil || len(strings.TrimSpace(string(secret))) < 10 {
		t.Fatalf("node secret: %q %v", secret, err)
	}
	const id = "e2e-task-env"
	t.Cleanup(func() { removeJobContainers(t, id) })
	if r := nomadishAt(t, a.addr, "job", "run", writeFile(t, "env.nomad.hcl", envJob(id))); r.code != 0 {
		t.Fatalf("job run: %v\n%s", r, a.logTail())
	}
	var allocID string
	eventually(t, 60*time.Second, "the env job completes", func() (bool, string) {
		var allocs []allocRow
		if err := getJSON(a.addr+"/v1/job/"+id+"/allocations", &allocs); err != nil || len(allocs) != 1 {
			return false, fmt.Sprintf("%+v %v", allocs, err)
		}
		allocID = allocs[0].ID
		return allocs[0].ClientStatus == "complete", allocs[0].ClientStatus
	})
	for _, task := range []string{"raw", "iso", "box"} {
		r := nomadishAt(t, a.addr, "alloc", "logs", allocID, task)
		if r.code != 0 || !strings.Contains(r.out, "end-of-env") || !strings.Contains(r.out, "NOMAD_ALLOC_ID="+allocID) {
			t.Fatalf("%s: alloc logs: %v", task, r)
		}
		for k := range leaks {
			if strings.Contains(r.out, "\n"+k+"=") || strings.HasPrefix(r.out, k+"=") {
				t.Errorf("%s: task env has %s:\n%s", task, k, r.out)
			}
		}
		if strings.Contains(r.out, token) || strings.Contains(r.out, strings.TrimSpace(string(secret))) {
			t.Errorf("%s: task env holds the operator token or the node secret:\n%s", task, r.out)
		}
	}
	checkPluginEnvs(t, a.cmd.Process.Pid, token)
}

// checkPluginEnvs reads the environment of each child process of the agent
// (its driver plugins) and fails if one holds token.
func checkPluginEnvs(t *testing.T, agentPID int, token string) {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	plugins := 0
	for _, p := range procs {
		stat, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 || f[1] != strconv.Itoa(agentPID) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
		if !strings.Contains(string(cmdline), "plugin") {
			continue
		}
		plugins++
		env, err := os.ReadFile(filepath.Join(filepath.Dir(p), "environ"))
		if err != nil {
			t.Fatalf("reading %s environ: %v", filepath.Dir(p), err)
		}
		if strings.Contains(string(env), token) || strings.Contains(string(env), "\x00NOMAD_ADDR=") {
			t.Errorf("plugin %q inherited the agent's credentials", strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	if plugins == 0 {
		t.Error("no driver plugin process found under the agent")
	}
}
