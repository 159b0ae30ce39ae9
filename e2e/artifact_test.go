package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// artifactJob is a batch raw_exec job whose task prints the file its
// artifact unpacked; restarts: one attempt, then the allocation fails.
func artifactJob(id, source, checksum string) string {
	return fmt.Sprintf(`job %q {
  type = "batch"
  group "g" {
    restart {
      attempts = 1
      delay    = "1s"
      mode     = "fail"
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "t" {
      driver = "raw_exec"
      artifact {
        source      = %q
        destination = "local/app"
        options {
          checksum = %q
        }
        headers {
          X-Nomad-Alloc = "${NOMAD_ALLOC_ID}"
        }
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "cat ${NOMAD_TASK_DIR}/app/msg.txt"]
      }
      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}
`, id, source, checksum)
}

type allocWithStates struct {
	ID, ClientStatus string
	TaskStates       map[string]struct {
		State  string
		Failed bool
		Events []struct{ Type, DownloadError string }
	}
}

// An artifact (tar.gz with its sha256, from an HTTP server the test runs)
// is unpacked before the task starts and read by it, with the headers
// interpolated; a wrong checksum is a "Failed Artifact Download" event
// with the reason, the task never starts, and the allocation fails after
// the restart attempts. A destination leaving the allocation is refused
// at submission with its place.
func TestArtifactDownloadAndChecksum(t *testing.T) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	body := "hello from the artifact\n"
	tw.WriteHeader(&tar.Header{Name: "msg.txt", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
	tw.Write([]byte(body))
	tw.Close()
	gz.Close()
	arch := buf.Bytes()
	sum := sha256.Sum256(arch)

	var mu sync.Mutex
	var allocHeaders []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		allocHeaders = append(allocHeaders, r.Header.Get("X-Nomad-Alloc"))
		mu.Unlock()
		w.Write(arch)
	}))
	t.Cleanup(srv.Close)

	// Fresh IDs per run: a purged job's allocations linger a moment.
	suffix := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	good, bad := "e2e-artifact-ok-"+suffix, "e2e-artifact-badsum-"+suffix
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", good)
		nomadish(t, "job", "stop", "-purge", bad)
	})
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "ok.nomad.hcl", artifactJob(good, srv.URL+"/app.tar.gz", "sha256:"+hex.EncodeToString(sum[:])))); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	wrong := "sha256:" + strings.Repeat("ab", 32)
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "bad.nomad.hcl", artifactJob(bad, srv.URL+"/app.tar.gz", wrong))); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}

	allocOf := func(job string) (allocWithStates, bool) {
		var rows []allocRow
		if err := getJSON(dev.addr+"/v1/job/"+job+"/allocations", &rows); err != nil || len(rows) != 1 {
			return allocWithStates{}, false
		}
		var a allocWithStates
		if err := getJSON(dev.addr+"/v1/allocation/"+rows[0].ID, &a); err != nil {
			return allocWithStates{}, false
		}
		return a, true
	}
	var okAlloc allocWithStates
	eventually(t, 60*time.Second, "the artifact job completes", func() (bool, string) {
		a, ok := allocOf(good)
		okAlloc = a
		return ok && a.ClientStatus == "complete", fmt.Sprintf("%+v", a)
	})
	if r := nomadish(t, "alloc", "logs", okAlloc.ID, "t"); r.code != 0 || !strings.Contains(r.out, "hello from the artifact") {
		t.Fatalf("task output: %v", r)
	}
	var types []string
	for _, e := range okAlloc.TaskStates["t"].Events {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, ","); !strings.Contains(got, "Downloading Artifacts,Started") {
		t.Errorf("events: %s", got)
	}
	mu.Lock()
	if len(allocHeaders) == 0 || !containsStr(allocHeaders, okAlloc.ID) {
		t.Errorf("X-Nomad-Alloc headers received %v, want %s among them", allocHeaders, okAlloc.ID)
	}
	mu.Unlock()

	eventually(t, 60*time.Second, "the wrong-checksum job fails", func() (bool, string) {
		a, ok := allocOf(bad)
		if !ok || a.ClientStatus != "failed" {
			return false, fmt.Sprintf("%+v", a)
		}
		st := a.TaskStates["t"]
		failures := 0
		for _, e := range st.Events {
			switch e.Type {
			case "Failed Artifact Download":
				failures++
				if !strings.Contains(e.DownloadError, "Checksums did not match") {
					t.Errorf("DownloadError = %q", e.DownloadError)
				}
			case "Started":
				t.Errorf("the task started without its artifact: %+v", st.Events)
			}
		}
		return st.Failed && failures == 2, fmt.Sprintf("%+v", st)
	})

	esc := strings.Replace(artifactJob("e2e-artifact-escape", srv.URL+"/a.tar.gz", wrong), `"local/app"`, `"../../etc"`, 1)
	r := nomadish(t, "job", "run", writeFile(t, "esc.nomad.hcl", esc))
	if r.code == 0 || !strings.Contains(r.out+r.errOut, "esc.nomad.hcl:17:23: Invalid artifact destination") {
		t.Fatalf("escaping destination: %v", r)
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
