package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// dispatchServer answers PUT /v1/job/:id/dispatch and periodic/force,
// recording the requests.
type dispatchServer struct {
	mu    sync.Mutex
	paths []string
	body  map[string]any
}

func newDispatchServer(t *testing.T) (*dispatchServer, string) {
	d := &dispatchServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /v1/job/{id}/dispatch", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		d.mu.Lock()
		d.paths = append(d.paths, r.URL.Path+"?"+r.URL.RawQuery)
		_ = json.Unmarshal(b, &d.body)
		d.mu.Unlock()
		_ = json.NewEncoder(w).Encode(structs.JobDispatchResponse{DispatchedJobID: r.PathValue("id") + "/dispatch-1-abcdef01", EvalID: evalID})
	})
	mux.HandleFunc("PUT /v1/job/{id}/periodic/force", func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.paths = append(d.paths, r.URL.Path)
		d.mu.Unlock()
		_ = json.NewEncoder(w).Encode(structs.PeriodicForceResponse{EvalID: evalID})
	})
	mux.HandleFunc("GET /v1/jobs", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode([]*structs.JobListStub{{ID: "nightly"}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return d, srv.URL
}

func TestJobDispatchSendsPayloadMetaAndToken(t *testing.T) {
	d, addr := newDispatchServer(t)
	payload := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(payload, []byte(`{"n":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"NOMADISH_ADDR": addr}
	code, out, errOut := runCLI(env, "job", "dispatch", "-detach", "-meta", "customer=acme", "-meta", "format=pdf",
		"-idempotency-token", "tok", "render", payload)
	if code != 0 || !strings.Contains(out, "Dispatched Job ID = render/dispatch-1-abcdef01") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if len(d.paths) != 1 || d.paths[0] != "/v1/job/render/dispatch?idempotency_token=tok" {
		t.Fatalf("requests = %q", d.paths)
	}
	meta, _ := d.body["Meta"].(map[string]any)
	if d.body["Payload"] != "eyJuIjoxfQ==" || meta["customer"] != "acme" || meta["format"] != "pdf" {
		t.Fatalf("body = %v", d.body)
	}
}

func TestJobDispatchBadInputSendsNothing(t *testing.T) {
	d, addr := newDispatchServer(t)
	env := map[string]string{"NOMADISH_ADDR": addr}
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, make([]byte, structs.DispatchPayloadSizeLimit+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"job", "dispatch", "-meta", "novalue", "render"}, `invalid -meta "novalue": want key=value`},
		{[]string{"job", "dispatch", "render", big}, "larger than 16384 bytes (16 KiB)"},
		{[]string{"job", "dispatch", "render", "/does/not/exist"}, "reading payload"},
		{[]string{"job", "dispatch"}, ""},
	} {
		code, _, errOut := runCLI(env, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if len(d.paths) != 0 {
		t.Fatalf("requests were sent: %q", d.paths)
	}
}

func TestJobPeriodicForce(t *testing.T) {
	d, addr := newDispatchServer(t)
	code, out, errOut := runCLI(map[string]string{"NOMADISH_ADDR": addr}, "job", "periodic", "force", "-detach", "nightly")
	if code != 0 || !strings.Contains(out, "Evaluation ID: "+evalID) || len(d.paths) != 1 || d.paths[0] != "/v1/job/nightly/periodic/force" {
		t.Fatalf("exit %d %q %q; requests %q", code, out, errOut, d.paths)
	}
}

// `job run` of a periodic job (no evaluation) tells the next launch.
func TestJobRunPeriodicTellsNextLaunch(t *testing.T) {
	f := newFakeAPI(t)
	hcl := `job "nightly" {
  type = "batch"
  periodic {
    cron = "0 3 * * *"
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}
`
	code, out, errOut := f.run("job", "run", writeJob(t, hcl))
	want := "Approximate next launch time: " + fixedNow.UTC().Truncate(24*time.Hour).Add(3*time.Hour).Format(time.RFC3339)
	if fixedNow.UTC().Hour() >= 3 {
		want = "Approximate next launch time: " + fixedNow.UTC().Truncate(24*time.Hour).Add(27*time.Hour).Format(time.RFC3339)
	}
	if code != 0 || !strings.Contains(out, "Job registration successful") || !strings.Contains(out, want) {
		t.Fatalf("exit %d\nstdout %q\nstderr %q\nwant %q", code, out, errOut, want)
	}
}
