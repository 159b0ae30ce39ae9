package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTaskDiedWhileClientDownIsRestarted: the client agent is SIGKILLed,
// its task is killed while no client runs, and the client comes back: the
// task's end is reported (a Terminated event) and the task is restarted per
// its restart policy (one restart, a new process), not left for dead.
func TestTaskDiedWhileClientDownIsRestarted(t *testing.T) {
	id := uniqueID("e2e-dead")
	dir := filepath.Join(agentsDir(t), "dead-restarter")
	pidFile := filepath.Join(dir, "task.pid")
	dc := `datacenter = "dc-dead"`
	c, err := startAgent(dir, false, dev.rpcAddr, dc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		retireNodesIn(t, "dc-dead")
		c.stop()
		if t.Failed() {
			t.Logf("client log (tail):\n%s", c.logTail())
		}
	})
	if err := c.waitReady(2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	job := rawExecJob(id, "service", "/bin/sh",
		[]string{"-c", "echo $$ > " + pidFile + "; while true; do sleep 0.1; done"}, 32)
	job = strings.Replace(job, `type = "service"`, `type = "service"`+"\n  datacenters = [\"dc-dead\"]", 1)
	job = strings.Replace(job, `task "t" {`, "restart {\n      attempts = 2\n      delay    = \"1s\"\n      mode     = \"fail\"\n    }\n    task \"t\" {", 1)
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "dead.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	pid := readPid(t, pidFile)

	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the task: %v", err)
	}
	_ = os.Remove(pidFile)
	c, err = startAgent(dir, false, dev.rpcAddr, dc)
	if err != nil {
		t.Fatal(err)
	}
	newPid := readPid(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(newPid, syscall.SIGKILL) })
	if newPid == pid {
		t.Fatalf("pid %d reused?", pid)
	}
	eventually(t, 30*time.Second, "the restart reported", func() (bool, string) {
		var a struct {
			ClientStatus string
			TaskStates   map[string]struct {
				State    string
				Restarts uint64
				Events   []struct{ Type string }
			}
		}
		if err := getJSON(dev.addr+"/v1/allocation/"+allocs[0].ID, &a); err != nil {
			return false, err.Error()
		}
		ts := a.TaskStates["t"]
		var types []string
		for _, ev := range ts.Events {
			types = append(types, ev.Type)
		}
		ev := strings.Join(types, ",")
		return a.ClientStatus == "running" && ts.State == "running" && ts.Restarts == 1 &&
				strings.Contains(ev, "Terminated,Restarting,Started"),
			fmt.Sprintf("%s %s restarts %d events %s", a.ClientStatus, ts.State, ts.Restarts, ev)
	})
}
