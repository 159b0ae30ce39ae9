package e2e

import (
	"strings"
	"testing"
)

// With the default docker plugin config, a job whose volume or bind mount
// climbs out of the allocation directory fails with a Driver Failure event
// naming the option, and no container is created for it.
func TestDockerHostPathEscapeFailsTheTask(t *testing.T) {
	ensureTestImage(t)
	for base, cfg := range map[string]string{
		"e2e-docker-escape-volume": `volumes = ["../../../../../../:/hostroot"]`,
		"e2e-docker-escape-mount":  "mount {\n          type   = \"bind\"\n          source = \"../../..\"\n          target = \"/hostroot\"\n        }",
	} {
		id := uniqueID(base)
		job := strings.Replace(dockerJob(id, "batch", `restart {
      attempts = 0
      mode     = "fail"
    }`, "", "ls /hostroot/etc"), "command = ", cfg+"\n        command = ", 1)
		path := writeFile(t, id+".nomad.hcl", job)
		t.Cleanup(func() {
			nomadish(t, "job", "stop", "-purge", id)
			removeJobContainers(t, id)
		})
		if r := nomadish(t, "job", "run", "-detach", path); r.code != 0 {
			t.Fatalf("%s: job run: %v %s %s", id, r, r.out, r.errOut)
		}
		allocs := waitAllocs(t, id, 1, "failed", func(a allocRow) bool { return a.ClientStatus == "failed" })
		st := nomadish(t, "alloc", "status", allocs[0].ID[:8])
		if st.code != 0 || !strings.Contains(st.out, "Driver Failure") || !strings.Contains(st.out, "outside the allocation directory") {
			t.Errorf("%s: alloc status: %v", id, st)
		}
		if c := jobContainers(t, id); c != "" {
			t.Errorf("%s: containers %q created for a refused task", id, c)
		}
	}
}
