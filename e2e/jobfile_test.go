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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/docker/dockertest"
)

// jobFileJob uses the job-file features of issue 13 together: a prestart
// task, an artifact with a checksum, templates reading a Nomad variable
// (change_mode restart in one task, signal in another), a read-only host
// volume mounted in an exec and a docker task, and a poststop task.
func jobFileJob(id, dc, artifactURL, checksum string) string {
	tmpl := fmt.Sprintf(`
      template {
        data        = "pw={{ with nomadVar \"nomad/jobs/%s\" }}{{ .password }}{{ end }} index={{ env \"NOMAD_ALLOC_INDEX\" }}\n"
        destination = "local/conf.txt"
        %%s
      }`, id)
	volTask := func(name, driver, image, prefix string) string {
		img := ""
		if image != "" {
			img = fmt.Sprintf("image = %q\n        ", image)
		}
		script := fmt.Sprintf("cat %scerts/hello; if echo x > %scerts/hello 2>/dev/null; then echo WROTE; else echo write-refused; fi; exec sleep 600", prefix, prefix)
		return fmt.Sprintf(`
    task %q {
      driver       = %q
      kill_timeout = "1s"
      config {
        %scommand = "/bin/sh"
        args    = ["-c", %q]
      }
      volume_mount {
        volume      = "certs"
        destination = "/certs"
        read_only   = true
      }
      resources {
        cpu    = 50
        memory = 32
      }
    }`, name, driver, img, script)
	}
	return fmt.Sprintf(`job %q {
  datacenters = [%q]
  group "g" {
    volume "certs" {
      type      = "host"
      source    = "shared"
      read_only = true
    }
    task "init" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "echo from-prestart > $NOMAD_ALLOC_DIR/init.txt"]
      }
    }
    task "web" {
      driver       = "raw_exec"
      kill_timeout = "1s"
      artifact {
        source      = %q
        destination = "local/app"
        options {
          checksum = %q
        }
      }%s
      config {
        command = "/bin/sh"
        args    = ["-c", "cat $NOMAD_ALLOC_DIR/init.txt $NOMAD_TASK_DIR/app/msg.txt $NOMAD_TASK_DIR/conf.txt; exec sleep 600"]
      }
    }
    task "sig" {
      driver       = "raw_exec"
      kill_timeout = "1s"%s
      config {
        command = "/bin/sh"
        args    = ["-c", "trap 'echo got-hup; cat $NOMAD_TASK_DIR/conf.txt' HUP; cat $NOMAD_TASK_DIR/conf.txt; while true; do sleep 0.2; done"]
      }
    }%s%s
    task "post" {
      driver = "raw_exec"
      lifecycle {
        hook = "poststop"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "echo poststop-ran-after-$(cat $NOMAD_ALLOC_DIR/init.txt)"]
      }
    }
  }
}
`, id, dc, artifactURL, checksum,
		fmt.Sprintf(tmpl, `change_mode = "restart"`),
		fmt.Sprintf(tmpl, `change_mode = "signal"
        change_signal = "SIGHUP"`),
		volTask("exec", "exec", "", ""), volTask("box", "docker", dockertest.Image, "/"))
}

// tarGz returns a tar.gz holding one file.
func tarGz(t *testing.T, name, body string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(body))
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// One job on a real client agent (joined to the dev server, with a
// read-only host volume) uses issue 13's features together: the prestart
// task's file is read by the main task; the artifact (tar.gz, sha256) is
// unpacked; templates render a Nomad variable and an env value; updating
// the variable restarts one task (change_mode restart) and signals the
// other (SIGHUP), both seeing the new value; the exec and docker tasks read
// the volume and cannot write it; after `job stop` the poststop task runs.
func TestJobFileFeaturesTogether(t *testing.T) {
	ensureTestImage(t)
	host, err := os.MkdirTemp("", "nomadish-e2e-jobfile-") // exec tasks run as nobody: not under a 0700 dir
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(host) })
	os.Chmod(host, 0o755)
	if err := os.WriteFile(filepath.Join(host, "hello"), []byte("hello-volume\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	arch := tarGz(t, "msg.txt", "from-artifact\n")
	sum := sha256.Sum256(arch)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(arch) }))
	t.Cleanup(srv.Close)

	dcName := uniqueID("dc-jobfile")
	startClient(t, "jobfile", dcName, hostVolumeConfig("shared", host))

	id := uniqueID("e2e-jobfile")
	varPath := "nomad/jobs/" + id
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", id)
		nomadish(t, "var", "purge", varPath)
		removeJobContainers(t, id)
	})
	if r := nomadish(t, "var", "put", varPath, "password=one"); r.code != 0 {
		t.Fatalf("var put: %v", r)
	}
	job := jobFileJob(id, dcName, srv.URL+"/app.tar.gz", "sha256:"+hex.EncodeToString(sum[:]))
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "jobfile.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocID := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })[0].ID
	logs := func(task string) string {
		r := nomadish(t, "alloc", "logs", allocID, task)
		return r.out
	}
	eventually(t, 60*time.Second, "every task printed what it read", func() (bool, string) {
		w, s, e, b := logs("web"), logs("sig"), logs("exec"), logs("box")
		ok := w == "from-prestart\nfrom-artifact\npw=one index=0\n" && s == "pw=one index=0\n" &&
			e == "hello-volume\nwrite-refused\n" && b == "hello-volume\nwrite-refused\n"
		return ok, fmt.Sprintf("web=%q sig=%q exec=%q box=%q", w, s, e, b)
	})

	if r := nomadish(t, "var", "put", "-force", varPath, "password=two"); r.code != 0 {
		t.Fatalf("var put: %v", r)
	}
	eventually(t, 60*time.Second, "the variable change restarts web and signals sig", func() (bool, string) {
		w, s := logs("web"), logs("sig")
		ok := strings.HasSuffix(w, "pw=one index=0\nfrom-prestart\nfrom-artifact\npw=two index=0\n") &&
			strings.HasSuffix(s, "pw=one index=0\ngot-hup\npw=two index=0\n")
		return ok, fmt.Sprintf("web=%q sig=%q", w, s)
	})
	var a allocWithStates
	if err := getJSON(dev.addr+"/v1/allocation/"+allocID, &a); err != nil {
		t.Fatal(err)
	}
	if st := a.TaskStates["init"]; st.State != "dead" || st.Failed {
		t.Errorf("prestart task state %+v", st)
	}
	if st := a.TaskStates["sig"]; st.State != "running" {
		t.Errorf("signalled task state %+v", st)
	}
	if b, _ := os.ReadFile(filepath.Join(host, "hello")); string(b) != "hello-volume\n" {
		t.Errorf("host volume file now %q", b)
	}

	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 60*time.Second, "the poststop task runs after the stop", func() (bool, string) {
		var a allocWithStates
		getJSON(dev.addr+"/v1/allocation/"+allocID, &a)
		p := logs("post")
		return p == "poststop-ran-after-from-prestart\n" && a.TaskStates["post"].State == "dead", fmt.Sprintf("post=%q %+v", p, a.TaskStates["post"])
	})
}
