package jobcheck_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/jobcheck"
	"github.com/nomadish/nomadish/jobspec"
	"github.com/nomadish/nomadish/structs"
)

// meshJob is a bridge-mode job whose service has the connect block given.
func meshJob(connect string) string {
	return `job "countdash" {
  group "api" {
    network {
      mode = "bridge"
      port "http" { to = 9001 }
    }
    service {
      name = "count-api"
      port = "http"
      connect {
` + connect + `
      }
    }
    task "web" {
      driver = "raw_exec"
      config { command = "/bin/sleep" }
    }
  }
}`
}

func TestMeshRefusesWhatNeedsTheMesh(t *testing.T) {
	for _, tc := range []struct {
		name, connect, want string
	}{
		{"upstreams", `sidecar_service {
          proxy {
            upstreams {
              destination_name = "count-db"
              local_bind_port  = 5432
            }
          }
        }`, `group "api": service "count-api": the task reaches its upstreams ("count-db") only through the connect sidecar proxy, which needs Consul's service mesh; nomadish does not bundle Consul, so the task cannot work here`},
		{"native", `native = true`, `connect native = true means the task speaks Connect's mutual TLS itself`},
		{"gateway", `gateway {
          ingress {
            listener {
              port     = 8080
              protocol = "tcp"
              service { name = "count-api" }
            }
          }
        }`, `a connect gateway is an Envoy proxy of the mesh`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, warnings, err := jobspec.ParseWithWarnings(&jobspec.ParseConfig{Path: "m.hcl", Body: []byte(meshJob(tc.connect))})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(warnings, "\n"), "Consul Connect ignored") {
				t.Errorf("warnings = %q", warnings)
			}
			_, err = jobcheck.Prepare(job, "", catalog.Builtin)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Prepare: %v, want %q", err, tc.want)
			}
			if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
				t.Errorf("code = %d, want bad request", code)
			}
			if err := jobcheck.Check(job, catalog.Builtin); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

// A sidecar_service without upstreams is accepted: the service is still
// reachable on its port.
func TestMeshAcceptsSidecarWithoutUpstreams(t *testing.T) {
	job, err := jobspec.Parse(&jobspec.ParseConfig{Path: "m.hcl", Body: []byte(meshJob(`sidecar_service {}
        sidecar_task {
          resources { cpu = 50 }
        }`))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jobcheck.Prepare(job, "", catalog.Builtin); err != nil {
		t.Fatal(err)
	}
}

// A job sent as JSON by the official client has the connect block in
// Nomad's CamelCase shape; the same refusal applies.
func TestMeshJSONShape(t *testing.T) {
	var connect map[string]any
	src := `{"Native": false, "Gateway": null, "SidecarTask": null,
	  "SidecarService": {"Port": "", "Proxy": {"Upstreams": [{"DestinationName": "count-db", "LocalBindPort": 5432}]}}}`
	if err := json.Unmarshal([]byte(src), &connect); err != nil {
		t.Fatal(err)
	}
	job := &structs.Job{ID: "j", TaskGroups: []*structs.TaskGroup{{Name: "g",
		Services: []*structs.Service{{Name: "api", Connect: connect}},
		Tasks:    []*structs.Task{{Name: "t", Driver: "raw_exec", Config: map[string]any{"command": "/bin/true"}}}}}}
	probs := jobcheck.Mesh(job)
	if len(probs) != 1 || !strings.Contains(probs[0], `upstreams ("count-db")`) {
		t.Fatalf("problems = %q", probs)
	}
	connect["SidecarService"] = map[string]any{"Proxy": map[string]any{"Upstreams": nil}}
	if probs := jobcheck.Mesh(job); len(probs) != 0 {
		t.Fatalf("problems without upstreams = %q", probs)
	}
}

// TestMeshOnNomadBridgeJobs runs Mesh on Nomad's bridge-mode job files
// (jobspec/testdata/nomad-bridge): exactly those whose tasks need the mesh
// are refused; sidecars without upstreams and plain bridge jobs pass.
func TestMeshOnNomadBridgeJobs(t *testing.T) {
	refused := map[string]bool{
		"jobspec__tg-network.hcl":                            true, // upstreams
		"e2e__connect__demo.nomad":                           true, // upstreams
		"e2e__connect__ingress-gateway.nomad":                true, // gateway, native
		"e2e__connect__multi-ingress.nomad":                  true, // gateways, native
		"e2e__connect__terminating-gateway.nomad":            true, // gateway, upstreams
		"e2e__connect__tproxy.nomad.hcl":                     true, // transparent proxy
		"e2e__consulcompat__connect.nomad.hcl":               true, // upstreams
		"e2e__consul__namespaces__connect_ingress.nomad":     true,
		"e2e__consul__namespaces__connect_sidecars.nomad":    true,
		"e2e__consul__namespaces__connect_terminating.nomad": true,
		"e2e__exec2__countdash.hcl":                          true, // upstreams
	}
	files, err := filepath.Glob("../jobspec/testdata/nomad-bridge/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		if name == "README.md" {
			continue
		}
		var vars []string // config_format declares var.format without a default
		if strings.Contains(name, "config_format") {
			vars = []string{"format=json"}
		}
		job, err := jobspec.Parse(&jobspec.ParseConfig{Path: path, ArgVars: vars})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		job.Canonicalize()
		probs := jobcheck.Mesh(job)
		if got := len(probs) > 0; got != refused[name] {
			t.Errorf("%s: refused = %v, want %v (%q)", name, got, refused[name], probs)
		}
	}
}
