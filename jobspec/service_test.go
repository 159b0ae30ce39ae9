package jobspec

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

const serviceJob = `job "shop" {
  group "web" {
    network {
      mode = "bridge"
      port "http" { to = 8080 }
      port "grpc" {}
    }
    service {
      provider     = "nomad"
      port         = "http"
      tags         = ["v1", "web"]
      canary_tags  = ["canary"]
      meta         = { team = "a" }
      canary_meta { stage = "canary" }
      address_mode = "alloc"
      on_update    = "require_healthy"
      enable_tag_override = true
      check {
        name     = "ready"
        type     = "http"
        path     = "/health"
        method   = "POST"
        body     = "{}"
        protocol = "https"
        interval = "5s"
        timeout  = "1s"
        initial_status = "critical"
        success_before_passing   = 2
        failures_before_critical = 3
        failures_before_warning  = 1
        tls_skip_verify = true
        tls_server_name = "web.local"
        header {
          Authorization = ["Basic x"]
          X-Two         = ["a", "b"]
        }
        check_restart { limit = 5 }
      }
      check {
        type     = "script"
        task     = "app"
        command  = "/bin/check"
        args     = ["-q"]
        interval = "10s"
        timeout  = "3s"
        on_update = "require_healthy"
      }
      check_restart {
        limit = 2
        grace = "30s"
      }
    }
    service {
      provider = "nomad"
      name     = "${JOB}-grpc"
      port     = "grpc"
      check {
        type         = "grpc"
        grpc_service = "shop.Health"
        grpc_use_tls = true
        interval     = "10s"
        timeout      = "2s"
      }
    }
    task "app" {
      driver = "raw_exec"
      config { command = "/bin/app" }
      service {
        provider = "nomad"
        port     = 9090
        check {
          type     = "tcp"
          interval = "10s"
          timeout  = "2s"
          address_mode = "host"
        }
      }
    }
  }
}`

func TestParseServices(t *testing.T) {
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "s.hcl", Body: []byte(serviceJob)})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Fatalf("warnings: %q", warnings)
	}
	tg := job.TaskGroups[0]
	if len(tg.Services) != 2 || len(tg.Tasks[0].Services) != 1 {
		t.Fatalf("services: group %d, task %d", len(tg.Services), len(tg.Tasks[0].Services))
	}
	web := tg.Services[0]
	want := &structs.Service{
		Provider: "nomad", PortLabel: "http", Tags: []string{"v1", "web"}, CanaryTags: []string{"canary"},
		Meta: map[string]string{"team": "a"}, CanaryMeta: map[string]string{"stage": "canary"},
		AddressMode: "alloc", OnUpdate: "require_healthy", EnableTagOverride: true,
		CheckRestart: &structs.CheckRestart{Limit: 2, Grace: 30 * time.Second},
		Checks: []*structs.ServiceCheck{{
			Name: "ready", Type: "http", Path: "/health", Method: "POST", Body: "{}", Protocol: "https",
			Interval: 5 * time.Second, Timeout: time.Second, InitialStatus: "critical",
			SuccessBeforePassing: 2, FailuresBeforeCritical: 3, FailuresBeforeWarning: 1,
			TLSSkipVerify: true, TLSServerName: "web.local",
			Header:       map[string][]string{"Authorization": {"Basic x"}, "X-Two": {"a", "b"}},
			CheckRestart: &structs.CheckRestart{Limit: 5},
		}, {
			Type: "script", TaskName: "app", Command: "/bin/check", Args: []string{"-q"},
			Interval: 10 * time.Second, Timeout: 3 * time.Second, OnUpdate: "require_healthy",
		}},
	}
	if !reflect.DeepEqual(web, want) {
		t.Fatalf("service:\n got %+v\nwant %+v", web, want)
	}

	job.Canonicalize()
	if err := job.Validate(); err != nil {
		t.Fatal(err)
	}
	// Canonicalized as Nomad: names, the service's check_restart merged into
	// each check (the check's own fields win), grace 1s by default, the
	// namespace from the job.
	if web.Name != "shop-web" || web.Namespace != "default" {
		t.Errorf("name %q namespace %q", web.Name, web.Namespace)
	}
	if got := web.Checks[0].CheckRestart; *got != (structs.CheckRestart{Limit: 5, Grace: 30 * time.Second}) {
		t.Errorf("check 0 check_restart = %+v", got)
	}
	if got := web.Checks[1]; got.Name != `service: "shop-web" check` || got.CheckRestart.Limit != 2 {
		t.Errorf("check 1 = %+v", got)
	}
	if web.Checks[0].OnUpdate != "require_healthy" {
		t.Errorf("check on_update = %q", web.Checks[0].OnUpdate)
	}
	if got := tg.Services[1].Name; got != "shop-grpc" {
		t.Errorf("interpolated name = %q", got)
	}
	ts := tg.Tasks[0].Services[0]
	if ts.Name != "shop-web-app" || ts.TaskName != "app" || ts.PortLabel != "9090" || ts.AddressMode != "auto" {
		t.Errorf("task service = %+v", ts)
	}
	if ts.Checks[0].TaskName != "app" || ts.Checks[0].CheckRestart != nil {
		t.Errorf("task check = %+v", ts.Checks[0])
	}
}

func TestParseServiceDefaultsAndConsulWarning(t *testing.T) {
	src := `job "j" {
  group "g" {
    network {
      port "http" {}
    }
    service {
      port = "http"
      check_restart { limit = 3 }
      check {
        type     = "tcp"
        interval = "10s"
        timeout  = "2s"
      }
    }
    task "t" {
      driver = "raw_exec"
      service { port = "http" }
    }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "c.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "c.hcl:6:5: Consul service served by nomadish;") ||
		!strings.Contains(warnings[0], `exactly like provider = "nomad"`) {
		t.Fatalf("warnings = %q, want one about the consul provider", warnings)
	}
	job.Canonicalize()
	if err := job.Validate(); err != nil {
		t.Fatal(err)
	}
	s := job.TaskGroups[0].Services[0]
	if s.Provider != "consul" || s.OnUpdate != "require_healthy" || s.AddressMode != "auto" {
		t.Errorf("defaults: %+v", s)
	}
	if cr := s.Checks[0].CheckRestart; cr == nil || *cr != (structs.CheckRestart{Limit: 3, Grace: time.Second}) {
		t.Errorf("merged check_restart = %+v", cr)
	}
}

func TestParseConnectWarns(t *testing.T) {
	src := `job "j" {
  group "g" {
    network {
      mode = "bridge"
      port "http" { to = 8080 }
    }
    service {
      name = "api"
      port = "8080"
      connect {
        sidecar_service {}
        sidecar_task {
          resources { cpu = 50 }
        }
      }
    }
    task "t" { driver = "raw_exec" }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "c.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	var connect string
	for _, w := range warnings {
		if strings.Contains(w, "Consul Connect ignored") {
			connect = w
		}
	}
	if !strings.HasPrefix(connect, "c.hcl:10:7: Consul Connect ignored;") ||
		!strings.Contains(connect, "sidecar_service, sidecar_task are ignored") {
		t.Fatalf("warnings = %q", warnings)
	}
	c := job.TaskGroups[0].Services[0].Connect
	if _, ok := c["sidecar_service"]; !ok {
		t.Errorf("connect = %#v", c)
	}
}

func TestParseServiceErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`service { naem = "x" }`, `s.hcl:5:15: Unsupported argument; An argument named "naem" is not expected in a service block. Did you mean "name"?`},
		{`service { name = "a_b" }`, `s.hcl:5:22: Invalid service; The service's name "a_b" must be valid per RFC 1123`},
		{`service { port = "nope" }`, `s.hcl:5:22: Invalid service port; The port "nope" is not a port label of the group's network`},
		{`service { address_mode = "x" }`, `s.hcl:5:30: Invalid service; The service's address_mode must be`},
		{`service { provider = "etcd" }`, `s.hcl:5:26: Invalid service; The service's provider must be "nomad" or "consul", not "etcd"`},
		{`service {
        port = "http"
        check {
          type = "http"
          interval = "10s"
          timeout = "1s"
        }
      }`, `s.hcl:7:9: Invalid check; The check's path is required for an http check`},
		{`service {
        port = "http"
        check {
          type = "tcp"
          interval = "100ms"
          timeout = "1s"
        }
      }`, `s.hcl:9:22: Invalid check; The check's interval 100ms is shorter than the minimum 1s`},
		{`service {
        port = "http"
        check {
          type = "tcp"
          interval = "10s"
        }
      }`, `s.hcl:7:9: Invalid check; The check's timeout is required`},
		{`service {
        check {
          type = "script"
          command = "/bin/true"
          interval = "10s"
          timeout = "1s"
        }
      }`, `s.hcl:6:9: Invalid check task; A script check of a group service must name the task`},
		{`service {
        check {
          type = "script"
          task = "nope"
          command = "/bin/true"
          interval = "10s"
          timeout = "1s"
        }
      }`, `s.hcl:8:18: Invalid check task; Task "nope" is not a task of the group`},
		{`service {
        port = "http"
        check {
          type = "tcp"
          interval = "10s"
          timeout = "1s"
          initial_status = "ok"
        }
      }`, `s.hcl:11:28: Invalid check; The check's initial_status must be`},
		{`service {
        port = "http"
        check {
          type = "tcp"
          interval = "10s"
          timeout = "1s"
          check_restart { limit = -1 }
        }
      }`, `s.hcl:11:35: Invalid check_restart; The check_restart limit must not be negative`},
		{`service {
        port = "http"
        check {
          type = "tcp"
          interval = "10s"
          timeout = "1s"
          hedaer { A = ["b"] }
        }
      }`, `s.hcl:11:11: Unsupported block type; Blocks of type "hedaer" are not expected in a check block. Did you mean "header"?`},
		{`service {
        provider = "nomad"
        port = "http"
      }
      service {
        provider = "consul"
        port = "http"
      }`, `s.hcl:10:20: Mixed service providers`},
		{`service {
        port = "http"
        check {
          type = "ping"
          interval = "10s"
          timeout = "1s"
        }
      }`, `s.hcl:8:18: Invalid check; The check's type "ping" must be`},
	} {
		src := "job \"web\" {\n  group \"g\" {\n    # the group's service\n    # is on line 5\n    " + tc.body +
			"\n    network {\n      port \"http\" {}\n    }\n    task \"t\" { driver = \"raw_exec\" }\n  }\n}"
		_, err := Parse(&ParseConfig{Path: "s.hcl", Body: []byte(src)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.body, err, tc.want)
		}
	}
}
