package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDockerClientRestartReattaches kills a client agent with SIGKILL while
// its docker task runs, starts it again on the same data dir, and checks
// that the same container is re-attached (not restarted), its logs keep
// flowing, and the restarted client stops and removes it.
func TestDockerClientRestartReattaches(t *testing.T) {
	id := uniqueID("e2e-docker-reattach")
	ensureTestImage(t)
	dir := filepath.Join(agentsDir(t), "docker-restarter")
	dc := `datacenter = "dc-docker-restart"`
	c, err := startAgent(dir, false, dev.rpcAddr, dc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		retireNodesIn(t, "dc-docker-restart")
		c.stop()
		if t.Failed() {
			t.Logf("client log (tail):\n%s", c.logTail())
		}
	})
	if err := c.waitReady(2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	job := strings.Replace(dockerJob(id, "service", "", "",
		"trap 'exit 0' TERM; while true; do echo tick; sleep 0.1; done"),
		`type = "service"`, `type = "service"`+"\n  datacenters = [\"dc-docker-restart\"]", 1)
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", id)
		removeJobContainers(t, id)
	})
	start := time.Now()
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "docker-reattach.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	t.Logf("job run -> running: %v", time.Since(start))
	container := jobContainers(t, id)
	if container == "" || strings.Contains(container, "\n") {
		t.Fatalf("want one container, got %q", container)
	}

	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
	if got := jobContainers(t, id); got != container || !containerRunning(t, container) {
		t.Fatalf("container %s not running after its client died (containers: %q)", container, got)
	}

	c, err = startAgent(dir, false, dev.rpcAddr, dc)
	if err != nil {
		t.Fatal(err)
	}
	expectReattached(t, c, allocs[0].ID)
	if got := jobContainers(t, id); got != container {
		t.Fatalf("containers after the restart %q, want the same %s", got, container)
	}

	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "container removed by the restarted client", func() (bool, string) {
		out := jobContainers(t, id)
		return out == "", out
	})
}

// containerRunning asks docker inspect whether the container runs.
func containerRunning(t *testing.T, id string) bool {
	t.Helper()
	out, err := exec.Command("docker", "inspect", "-f", "{{.State.Running}}", id).CombinedOutput()
	return err == nil && strings.TrimSpace(string(out)) == "true"
}
