package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/docker"
	"github.com/nomadish/nomadish/drivers/docker/dockertest"
)

// dockerJob is a job of one docker task running the local test image
// (built by dockertest: no registry needed) with sh -c script.
func dockerJob(id, typ, network, ports, script string) string {
	return fmt.Sprintf(`job %q {
  type = %q%s
  group "g" {
    %s
    task "t" {
      driver       = "docker"
      kill_timeout = "1s"
      config {
        image   = %q
        command = "/bin/sh"
        args    = ["-c", %q]
        ports   = [%s]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
`, id, typ, quickHealthy(typ), network, dockertest.Image, script, ports)
}

func ensureTestImage(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := dockertest.EnsureImage(ctx, ""); err != nil {
		t.Fatalf("the docker e2e tests need a docker engine: %v", err)
	}
}

// A batch job with driver docker completes and its output is in alloc logs.
func TestDockerBatchJobRunsAndLogs(t *testing.T) {
	id := uniqueID("e2e-docker")
	ensureTestImage(t)
	path := writeFile(t, "docker.nomad.hcl", dockerJob(id, "batch", "", "", "echo hello-docker"))
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", id)
		removeJobContainers(t, id)
	})
	start := time.Now()
	r := nomadish(t, "job", "run", path)
	if r.code != 0 || !createdAlloc.MatchString(r.out) {
		t.Fatalf("job run: %v", r)
	}
	short := createdAlloc.FindStringSubmatch(r.out)[1]
	waitAllocs(t, id, 1, "complete", func(a allocRow) bool { return a.ClientStatus == "complete" })
	t.Logf("job run -> complete: %v", time.Since(start))
	if r := nomadish(t, "alloc", "logs", short, "t"); r.code != 0 || r.out != "hello-docker\n" {
		t.Fatalf("alloc logs: %v", r)
	}
	if r := nomadish(t, "alloc", "status", short); r.code != 0 || !strings.Contains(r.out, "Exit Code: 0") {
		t.Fatalf("alloc status: %v", r)
	}
	// The batch task's container is removed once the alloc is done with.
	if r := nomadish(t, "job", "stop", "-purge", id); r.code != 0 {
		t.Fatalf("job stop -purge: %v", r)
	}
}

// A service job whose container listens on the group port's `to`: the
// dynamic host port reaches it.
func TestDockerPortMapping(t *testing.T) {
	id := uniqueID("e2e-docker-port")
	ensureTestImage(t)
	script := `mkdir -p /tmp/www; echo hi-port > /tmp/www/index.html; echo addr=$NOMAD_HOST_ADDR_http; exec /bin/busybox httpd -f -p 8080 -h /tmp/www`
	job := dockerJob(id, "service", `network {
      port "http" { to = 8080 }
    }`, `"http"`, script)
	path := writeFile(t, "docker-port.nomad.hcl", job)
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", id)
		removeJobContainers(t, id)
	})
	if r := nomadish(t, "job", "run", "-detach", path); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	short := allocs[0].ID[:8]
	line := regexp.MustCompile(`addr=([0-9.]+:\d+)`)
	var logs result
	eventually(t, 15*time.Second, "the task's address line", func() (bool, string) {
		logs = nomadish(t, "alloc", "logs", short, "t")
		return line.MatchString(logs.out), logs.String()
	})
	url := "http://" + line.FindStringSubmatch(logs.out)[1] + "/index.html"
	var body string
	eventually(t, 10*time.Second, "GET "+url, func() (bool, string) {
		resp, err := http.Get(url)
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return resp.StatusCode == 200, fmt.Sprintf("%d %q", resp.StatusCode, body)
	})
	if body != "hi-port\n" {
		t.Fatalf("GET %s = %q", url, body)
	}
	stopDockerJob(t, id)
}

// stopDockerJob stops the job, waits until its containers are gone, then
// purges it.
func stopDockerJob(t *testing.T, id string) {
	t.Helper()
	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	waitAllocs(t, id, 1, "stopped", func(a allocRow) bool { return a.ClientStatus == "complete" })
	eventually(t, 15*time.Second, "the job's containers removed", func() (bool, string) {
		out := jobContainers(t, id)
		return out == "", out
	})
	if r := nomadish(t, "job", "stop", "-purge", id); r.code != 0 {
		t.Fatalf("job stop -purge: %v", r)
	}
}

// jobContainers lists the names of the containers of a job (docker ps).
func jobContainers(t *testing.T, id string) string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-a", "-q", "--filter", "label="+docker.LabelJobName+"="+id).CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// removeJobContainers is a cleanup for failed tests: docker rm -f of the
// job's containers.
func removeJobContainers(t *testing.T, id string) {
	if ids := jobContainers(t, id); ids != "" {
		_ = exec.Command("docker", append([]string{"rm", "-f"}, strings.Fields(ids)...)...).Run()
	}
}

// A missing image fails the task with a Driver Failure event naming the pull.
func TestDockerPullFailureEvent(t *testing.T) {
	id := uniqueID("e2e-docker-pull")
	job := strings.Replace(dockerJob(id, "batch", `restart {
      attempts = 0
      mode     = "fail"
    }`, "", "true"), dockertest.Image, "127.0.0.1:1/nomadish/missing:1", 1)
	path := writeFile(t, "docker-pull.nomad.hcl", job)
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	if r := nomadish(t, "job", "run", "-detach", path); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "failed", func(a allocRow) bool { return a.ClientStatus == "failed" })
	st := nomadish(t, "alloc", "status", allocs[0].ID[:8])
	if st.code != 0 || !strings.Contains(st.out, "Driver Failure") || !strings.Contains(st.out, "Failed to pull `127.0.0.1:1/nomadish/missing:1`") {
		t.Fatalf("alloc status: %v", st)
	}
}
