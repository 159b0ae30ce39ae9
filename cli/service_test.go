package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/agent"
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// serviceServer starts a real in-process server, registers a node through
// Node.Register as a client would, runs a job placed on it and registers
// two instances of service "web" of that allocation with the node's
// secret (ServiceRegistration.Upsert). It returns the CLI's env and the
// registrations.
func serviceServer(t *testing.T) (map[string]string, []*structs.ServiceRegistration) {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Name = "cli-services"
	cfg.Ports = config.Ports{}
	cfg.Client.Enabled = false
	a, err := agent.New(cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Shutdown() })
	env := map[string]string{"NOMAD_ADDR": "http://" + a.HTTPAddr()}
	node := structstest.Node(structs.GenerateUUID())
	node.Status = structs.NodeStatusReady
	waitUntil(t, "a leader taking the node", func() error {
		return a.Server().RPC("Node.Register", &structs.NodeRegisterRequest{Node: node,
			WriteRequest: structs.WriteRequest{AuthToken: node.SecretID}}, &structs.NodeUpdateResponse{})
	})
	job := filepath.Join(t.TempDir(), "web.nomad.hcl")
	if err := os.WriteFile(job, []byte("job \"web\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n"+
		"      config {\n        command = \"/bin/sleep\"\n      }\n    }\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(env, "job", "run", "-detach", job); code != 0 {
		t.Fatalf("job run: %d %q %q", code, out, errOut)
	}
	var allocID string
	waitUntil(t, "the allocation placed", func() error {
		resp, err := http.Get(env["NOMAD_ADDR"] + "/v1/job/web/allocations")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var stubs []*structs.AllocListStub
		if err := json.NewDecoder(resp.Body).Decode(&stubs); err != nil || len(stubs) != 1 {
			return fmt.Errorf("allocs %v: %v", stubs, err)
		}
		allocID = stubs[0].ID
		return nil
	})
	var regs []*structs.ServiceRegistration
	for i, tags := range [][]string{{"blue"}, {"green", "v2"}} {
		regs = append(regs, &structs.ServiceRegistration{ID: fmt.Sprintf("_nomad-task-%s-t-web-%d", allocID, 8080+i),
			ServiceName: "web", Namespace: "default", NodeID: node.ID, Datacenter: "dc1", JobID: "web", AllocID: allocID,
			Tags: tags, Address: "10.0.0.1", Port: 8080 + i})
	}
	if err := a.Server().RPC(structs.ServiceRegistrationUpsertRPC, &structs.ServiceRegistrationUpsertRequest{Services: regs,
		WriteRequest: structs.WriteRequest{AuthToken: node.SecretID}}, &structs.ServiceRegistrationUpsertResponse{}); err != nil {
		t.Fatal(err)
	}
	return env, regs
}

// waitUntil polls cond (a real server's asynchronous work) for 10 s.
func waitUntil(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// `service list|info|delete` against a real server holding registrations.
func TestServiceCommands(t *testing.T) {
	env, regs := serviceServer(t)
	run := func(args ...string) (int, string, string) { return runCLI(env, args...) }

	code, out, errOut := run("service", "list")
	if code != 0 || !strings.Contains(out, "Service Name") || !strings.Contains(out, "web") || !strings.Contains(out, "[blue,green,v2]") {
		t.Fatalf("list: %d %q %q", code, out, errOut)
	}
	if code, out, _ := run("service", "list", "-namespace", "*"); code != 0 || !strings.Contains(out, "Namespace") || !strings.Contains(out, "default") {
		t.Fatalf("list -namespace *: %d %q", code, out)
	}
	code, out, _ = run("service", "list", "-json")
	var stubs []*structs.ServiceRegistrationListStub
	if code != 0 || json.Unmarshal([]byte(out), &stubs) != nil || len(stubs) != 1 || stubs[0].Services[0].ServiceName != "web" {
		t.Fatalf("list -json: %d %q", code, out)
	}
	if code, out, _ := run("service", "list", "-t", `{{ range . }}{{ range .Services }}{{ .ServiceName }}{{ end }}{{ end }}`); code != 0 || out != "web" {
		t.Fatalf("list -t: %d %q", code, out)
	}
	if code, _, errOut := run("service", "list", "-json", "-t", "x"); code != 1 || !strings.Contains(errOut, "both -json and -t") {
		t.Fatalf("list -json -t: %d %q", code, errOut)
	}

	code, out, _ = run("service", "info", "web")
	if code != 0 || !strings.Contains(out, "10.0.0.1:8080") || !strings.Contains(out, "10.0.0.1:8081") || !strings.Contains(out, regs[0].AllocID[:8]) {
		t.Fatalf("info: %d %q", code, out)
	}
	if code, out, _ := run("service", "info", "-tag", "green", "web"); code != 0 || strings.Contains(out, ":8080") || !strings.Contains(out, ":8081") {
		t.Fatalf("info -tag green: %d %q", code, out)
	}
	if code, out, _ := run("service", "info", "-verbose", "web"); code != 0 || !strings.Contains(out, regs[0].ID) || !strings.Contains(out, "Datacenter") {
		t.Fatalf("info -verbose: %d %q", code, out)
	}
	if code, out, _ := run("service", "info", "-t", `{{ range . }}{{ .Port }} {{ end }}`, "web"); code != 0 || out != "8080 8081 " {
		t.Fatalf("info -t: %d %q", code, out)
	}
	if code, out, _ := run("service", "info", "nope"); code != 0 || out != "No service registrations found\n" {
		t.Fatalf("info of an unknown service: %d %q", code, out)
	}

	for _, bad := range [][]string{{"service", "info"}, {"service", "info", "a", "b"}, {"service", "delete", "web"}, {"service", "list", "x"}} {
		if code, _, errOut := run(bad...); code != 1 || !strings.Contains(errOut, "Usage: nomadish service") {
			t.Errorf("%v: %d %q, want exit 1 with usage", bad, code, errOut)
		}
	}
	if code, _, errOut := run("service", "delete", "web", "nope"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Fatalf("delete unknown: %d %q", code, errOut)
	}
	if code, out, errOut := run("service", "delete", "web", regs[0].ID); code != 0 || !strings.Contains(out, "Successfully deleted") {
		t.Fatalf("delete: %d %q %q", code, out, errOut)
	}
	if code, out, _ := run("service", "info", "web"); code != 0 || strings.Contains(out, ":8080") || !strings.Contains(out, ":8081") {
		t.Fatalf("info after delete: %d %q", code, out)
	}
}
