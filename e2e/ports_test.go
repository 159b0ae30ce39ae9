package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const portsJob = `job %q {
  group "g" {
    network {
      port "http" {}
    }
    task "t" {
      driver       = "raw_exec"
      kill_timeout = "1s"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo port=$NOMAD_PORT_http addr=${NOMAD_ADDR_http}; sleep 30"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
`

// A service job with a dynamic port: the scheduler picks a host port in the
// node's range, the task sees it in NOMAD_PORT_http (and ${...} interpolation
// of the config), and `alloc status` lists the address.
func TestDynamicPortReachesTask(t *testing.T) {
	id := uniqueID("e2e-ports")
	path := writeFile(t, "ports.nomad.hcl", fmt.Sprintf(portsJob, id))
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	start := time.Now()
	// -detach: the monitor would wait for the deployment's min_healthy_time.
	if r := nomadish(t, "job", "run", "-detach", path); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	short := allocs[0].ID[:8]
	t.Logf("running after %v", time.Since(start))

	line := regexp.MustCompile(`port=(\d+) addr=([0-9.]+):(\d+)`)
	var logs result
	eventually(t, 10*time.Second, "the task's port line", func() (bool, string) {
		logs = nomadish(t, "alloc", "logs", short, "t")
		return line.MatchString(logs.out), logs.String()
	})
	t.Logf("port line after %v", time.Since(start))
	m := line.FindStringSubmatch(logs.out)
	port, _ := strconv.Atoi(m[1])
	if port < 20000 || port > 32000 || m[3] != m[1] {
		t.Fatalf("port %d outside the dynamic range 20000-32000, or addr port %s differs: %q", port, m[3], logs.out)
	}
	addr := m[2] + ":" + m[1]

	st := nomadish(t, "alloc", "status", short)
	if st.code != 0 || !strings.Contains(st.out, "Allocation Addresses") ||
		!regexp.MustCompile(`\*http\s+yes\s+`+regexp.QuoteMeta(addr)).MatchString(st.out) {
		t.Fatalf("alloc status lacks the address %s: %v", addr, st)
	}
	if r := nomadish(t, "job", "stop", "-purge", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
}
