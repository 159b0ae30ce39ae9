package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAgentInfo(t *testing.T) {
	_, env := newRecordingAPI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"config":{"Region":"global"},"member":{"Name":"s1.global"},"stats":{
			"runtime":{"goroutines":"12","arch":"amd64"},"nomad":{"leader":"true"},"agent":{"server":"true"}}}`))
	})
	code, out, errOut := runCLI(env, "agent-info")
	want := "agent\n  server = true\nnomad\n  leader = true\nruntime\n  arch = amd64\n  goroutines = 12\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d, stderr %q, out:\n%s\nwant:\n%s", code, errOut, out, want)
	}
	code, out, _ = runCLI(env, "agent-info", "-json")
	var self agentSelf
	if code != 0 || json.Unmarshal([]byte(out), &self) != nil || self.Stats["runtime"]["goroutines"] != "12" || self.Config["Region"] != "global" {
		t.Fatalf("-json: exit %d, out %s", code, out)
	}
}

func TestOperatorAPI(t *testing.T) {
	var gotBody, gotHeader, gotToken string
	rec, env := newRecordingAPI(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotBody, gotHeader, gotToken = string(b), r.Header.Get("X-Test"), r.Header.Get("X-Nomad-Token")
		if r.URL.Path == "/v1/missing" {
			http.Error(w, "no such thing", http.StatusNotFound)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	})
	env["NOMADISH_TOKEN"] = "secret"
	env["NOMADISH_REGION"] = "east"
	code, out, errOut := runCLI(env, "operator", "api", "-filter", `Status == "running"`, "/v1/jobs?prefix=web")
	if code != 0 || out != `{"ok":true}` || gotToken != "secret" {
		t.Fatalf("get: exit %d, out %q, stderr %q, token %q", code, out, errOut, gotToken)
	}
	if c := rec.calls(); c[0] != "GET /v1/jobs?filter=Status+%3D%3D+%22running%22&prefix=web&region=east" {
		t.Fatalf("calls %q", c)
	}

	file := filepath.Join(t.TempDir(), "body.json")
	os.WriteFile(file, []byte(`{"a":1}`), 0o644)
	if code, _, _ := runCLI(env, "operator", "api", "-H", "X-Test: yes", "-d", "@"+file, "/v1/var/x"); code != 0 || gotBody != `{"a":1}` || gotHeader != "yes" {
		t.Fatalf("post from a file: exit %d, body %q, header %q", code, gotBody, gotHeader)
	}
	if c := rec.calls(); !strings.HasPrefix(c[1], "POST /v1/var/x") {
		t.Fatalf("method with a body: %q", c[1])
	}
	apiStdin = strings.NewReader("from stdin")
	defer func() { apiStdin = os.Stdin }()
	if code, _, _ := runCLI(env, "operator", "api", "-X", "PUT", "-d", "-", "/v1/x"); code != 0 || gotBody != "from stdin" {
		t.Fatalf("stdin body: exit %d, body %q", code, gotBody)
	}
	if c := rec.calls(); !strings.HasPrefix(c[2], "PUT /v1/x") {
		t.Fatalf("-X: %q", c[2])
	}

	code, out, errOut = runCLI(env, "operator", "api", "/v1/missing")
	if code != 1 || out != "" || !strings.Contains(errOut, "404") || !strings.Contains(errOut, "no such thing") {
		t.Fatalf("404: exit %d, out %q, stderr %q", code, out, errOut)
	}

	n := len(rec.calls())
	code, out, _ = runCLI(env, "operator", "api", "-dryrun", "-X", "DELETE", "-H", "X-Test: it's", "/v1/job/web")
	want := "curl \\\n  -X DELETE \\\n  -H 'X-Nomad-Token: secret' \\\n  -H 'X-Test: it'\\''s' \\\n  '" + env["NOMADISH_ADDR"] + "/v1/job/web?region=east'\n"
	if code != 0 || out != want {
		t.Fatalf("dryrun: exit %d, out:\n%s\nwant:\n%s", code, out, want)
	}
	if len(rec.calls()) != n {
		t.Fatal("-dryrun sent a request")
	}
	if code, _, _ := runCLI(env, "operator", "api"); code != 1 {
		t.Fatalf("no path: exit %d", code)
	}
}

func TestMonitor(t *testing.T) {
	rec, env := newRecordingAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("log_level") == "loud" {
			http.Error(w, "Unknown log level: loud", http.StatusBadRequest)
			return
		}
		enc := json.NewEncoder(w)
		enc.Encode(monitorFrame{Data: []byte("[TRACE] agent: one\n")})
		enc.Encode(struct{}{}) // a heartbeat
		enc.Encode(monitorFrame{Data: []byte("[DEBUG] agent: two\n")})
	})
	code, out, errOut := runCLI(env, "monitor", "-log-level=trace", "-log-json", "-node-id=n1")
	if code != 0 || out != "[TRACE] agent: one\n[DEBUG] agent: two\n" {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, errOut)
	}
	if c := rec.calls(); c[0] != "GET /v1/agent/monitor?log_json=true&log_level=trace&node_id=n1" {
		t.Fatalf("calls %q", c)
	}
	if code, _, errOut := runCLI(env, "monitor", "-log-level=loud"); code != 1 || !strings.Contains(errOut, "Unknown log level") {
		t.Fatalf("bad level: exit %d %q", code, errOut)
	}
}
