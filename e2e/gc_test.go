package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gcBatchJob is a one-task raw_exec batch job that finishes at once.
func gcBatchJob(id, dc string) string {
	return fmt.Sprintf(`job %q {
  type        = "batch"
  datacenters = [%q]
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo done-%s"]
      }
    }
  }
}
`, id, dc, id)
}

// statusOf answers the HTTP status of GET addr+path.
func statusOf(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSystemGCCollectsFinishedBatchJobs runs batch jobs to completion on a
// client, forces a garbage collection with `system gc`, and checks that the
// jobs, their evaluations and allocations are gone from the API and that the
// client destroyed their allocation directories (logs and all). A running
// service job on the same client is left alone.
func TestSystemGCCollectsFinishedBatchJobs(t *testing.T) {
	const dc = "gcdc"
	name := "gc1"
	c := startClient(t, name, dc)
	allocRoot := filepath.Join(filepath.Dir(c.logPath), "data", "alloc")

	// IDs of their own per run: a purged job's allocations stay until
	// collected, so a repeated run (-count=3) must not see the last one's.
	run := fmt.Sprintf("%x", time.Now().UnixNano()&0xffffff)
	jobs := []string{"gc-batch-1-" + run, "gc-batch-2-" + run, "gc-batch-3-" + run}
	liveID := "gc-live-" + run
	allocs := map[string]string{} // alloc ID -> job
	for _, id := range jobs {
		path := writeFile(t, id+".nomad.hcl", gcBatchJob(id, dc))
		if r := nomadish(t, "job", "run", path); r.code != 0 {
			t.Fatalf("job run %s: %s", id, r)
		}
	}
	live := writeFile(t, liveID+".nomad.hcl", fmt.Sprintf(`job %q {
  datacenters = [%q]
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["600"]
      }
    }
  }
}
`, liveID, dc))
	if r := nomadish(t, "job", "run", live); r.code != 0 {
		t.Fatalf("job run %s: %s", liveID, r)
	}
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", liveID) })

	for _, id := range jobs {
		eventually(t, 60*time.Second, id+" complete", func() (bool, string) {
			var stubs []struct{ ID, ClientStatus string }
			if err := getJSON(dev.addr+"/v1/job/"+id+"/allocations", &stubs); err != nil {
				return false, err.Error()
			}
			if len(stubs) != 1 || stubs[0].ClientStatus != "complete" {
				return false, fmt.Sprint(stubs)
			}
			allocs[stubs[0].ID] = id
			return true, ""
		})
	}
	var liveAlloc string
	eventually(t, 60*time.Second, liveID+" running", func() (bool, string) {
		var stubs []struct{ ID, ClientStatus string }
		if err := getJSON(dev.addr+"/v1/job/"+liveID+"/allocations", &stubs); err != nil {
			return false, err.Error()
		}
		if len(stubs) != 1 || stubs[0].ClientStatus != "running" {
			return false, fmt.Sprint(stubs)
		}
		liveAlloc = stubs[0].ID
		return true, ""
	})
	for a, job := range allocs {
		logs, _ := filepath.Glob(filepath.Join(allocRoot, a, "alloc", "logs", "t.stdout*"))
		var out []byte
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			out = append(out, b...)
		}
		if !strings.Contains(string(out), "done-"+job) {
			t.Fatalf("before gc, %s's logs %v: %q", job, logs, out)
		}
	}

	if r := nomadish(t, "system", "gc"); r.code != 0 {
		t.Fatalf("system gc: %s", r)
	}
	for a, job := range allocs {
		if c := statusOf(t, dev.addr+"/v1/job/"+job); c != http.StatusNotFound {
			t.Errorf("job %s after gc: HTTP %d, want 404", job, c)
		}
		if c := statusOf(t, dev.addr+"/v1/allocation/"+a); c != http.StatusNotFound {
			t.Errorf("alloc %s after gc: HTTP %d, want 404", a, c)
		}
		var evals []struct{ ID string }
		if err := getJSON(dev.addr+"/v1/evaluations?job="+job, &evals); err == nil && len(evals) > 0 {
			// ?job= may not be a filter everywhere: check each eval's job.
			for _, e := range evals {
				var ev struct{ JobID string }
				if getJSON(dev.addr+"/v1/evaluation/"+e.ID, &ev) == nil && ev.JobID == job {
					t.Errorf("eval %s of %s survives gc", e.ID, job)
				}
			}
		}
	}
	eventually(t, 60*time.Second, "client destroys the collected alloc dirs", func() (bool, string) {
		var left []string
		for a := range allocs {
			if _, err := os.Stat(filepath.Join(allocRoot, a)); err == nil {
				left = append(left, a)
			}
		}
		return len(left) == 0, fmt.Sprint("left: ", left)
	})
	if _, err := os.Stat(filepath.Join(allocRoot, liveAlloc)); err != nil {
		t.Errorf("the running job's alloc dir: %v", err)
	}
	if c := statusOf(t, dev.addr+"/v1/job/"+liveID); c != http.StatusOK {
		t.Errorf("running job after gc: HTTP %d", c)
	}
}
