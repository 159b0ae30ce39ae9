package structs

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func serviceGroup(services ...*Service) *Job {
	return &Job{ID: "j", Name: "j", TaskGroups: []*TaskGroup{{Name: "g",
		Networks: []*NetworkResource{{Mode: NetworkModeBridge, DynamicPorts: []Port{{Label: "http", To: 8080}}}},
		Services: services,
		Tasks:    []*Task{{Name: "t", Driver: "raw_exec"}}}}}
}

func httpCheck() *ServiceCheck {
	return &ServiceCheck{Type: "http", Path: "/health", Interval: 10 * time.Second, Timeout: 2 * time.Second}
}

func TestValidateServices(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  []*Service
		want string // "" valid
	}{
		{"ok", []*Service{{Name: "web", PortLabel: "http", Checks: []*ServiceCheck{httpCheck()}}}, ""},
		{"numeric port", []*Service{{Name: "web", PortLabel: "8080"}}, ""},
		{"interpolated name", []*Service{{Name: "${NOMAD_META_x}-web", PortLabel: "http"}}, ""},
		{"bad name", []*Service{{Name: "web.x"}}, `name "web.x" must be valid per RFC 1123`},
		{"unknown port", []*Service{{Name: "web", PortLabel: "db"}}, `port "db" is not a port label`},
		{"duplicate", []*Service{{Name: "web", PortLabel: "http"}, {Name: "web", PortLabel: "http"}}, "defined more than once"},
		{"providers", []*Service{{Name: "a", Provider: "nomad"}, {Name: "b", Provider: "consul"}}, "must all use one provider"},
		{"address with mode", []*Service{{Name: "a", Address: "1.2.3.4", AddressMode: "host"}}, `address may only be set with address_mode "auto"`},
		{"check without port", []*Service{{Name: "a", Checks: []*ServiceCheck{httpCheck()}}}, "port is required for a http check"},
		{"short interval", []*Service{{Name: "a", PortLabel: "http", Checks: []*ServiceCheck{{Type: "tcp", Interval: time.Millisecond, Timeout: time.Second}}}}, "shorter than the minimum 1s"},
		{"script without task", []*Service{{Name: "a", Checks: []*ServiceCheck{{Type: "script", Command: "x", Interval: time.Second, Timeout: time.Second}}}}, "must name the task"},
		{"script unknown task", []*Service{{Name: "a", Checks: []*ServiceCheck{{Type: "script", Command: "x", TaskName: "u", Interval: time.Second, Timeout: time.Second}}}}, `task "u" is not a task of the group`},
		{"grpc", []*Service{{Name: "a", PortLabel: "http", Checks: []*ServiceCheck{{Type: "grpc", GRPCService: "x", Interval: time.Second, Timeout: time.Second}}}}, ""},
		{"on_update ignore with check_restart", []*Service{{Name: "a", PortLabel: "http", OnUpdate: "ignore",
			CheckRestart: &CheckRestart{Limit: 1}, Checks: []*ServiceCheck{httpCheck()}}}, `on_update "ignore" is not compatible with check_restart`},
		{"negative limit", []*Service{{Name: "a", PortLabel: "http", Checks: []*ServiceCheck{{Type: "tcp", Interval: time.Second, Timeout: time.Second,
			CheckRestart: &CheckRestart{Limit: -1}}}}}, "check_restart limit must not be negative"},
		{"connect with nomad", []*Service{{Name: "a", Provider: "nomad", Connect: map[string]any{"native": true}}}, "cannot have a connect block"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := serviceGroup(tc.svc...)
			job.Canonicalize()
			err := job.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestValidateServiceBounds(t *testing.T) {
	many := make([]*Service, MaxServices+1)
	for i := range many {
		many[i] = &Service{Name: fmt.Sprintf("s%d", i)}
	}
	job := serviceGroup(many...)
	job.Canonicalize()
	if err := job.Validate(); err == nil || !strings.Contains(err.Error(), `group "g": has 1001 services, over the limit of 1000`) {
		t.Fatalf("err = %v", err)
	}
	checks := make([]*ServiceCheck, MaxChecksPerService+1)
	for i := range checks {
		checks[i] = httpCheck()
	}
	job = serviceGroup(&Service{Name: "web", PortLabel: "http", Checks: checks})
	job.Canonicalize()
	if err := job.Validate(); err == nil || !strings.Contains(err.Error(), `service "web": has 1001 checks, over the limit of 1000`) {
		t.Fatalf("err = %v", err)
	}
}

func TestCanonicalizeServices(t *testing.T) {
	job := serviceGroup(&Service{PortLabel: "http", CheckRestart: &CheckRestart{Limit: 2, IgnoreWarnings: true},
		Checks: []*ServiceCheck{httpCheck(), {Name: "own", Type: "tcp", Interval: time.Second, Timeout: time.Second,
			CheckRestart: &CheckRestart{Limit: 7, Grace: time.Minute}}}})
	job.Namespace = "prod"
	job.TaskGroups[0].Tasks[0].Services = []*Service{{Name: "${BASE}-x", Provider: "nomad"}}
	job.Canonicalize()
	s := job.TaskGroups[0].Services[0]
	if s.Name != "j-g" || s.Provider != "consul" || s.AddressMode != "auto" || s.OnUpdate != "require_healthy" || s.Namespace != "prod" {
		t.Fatalf("service = %+v", s)
	}
	if c := s.Checks[0]; c.Name != `service: "j-g" check` || c.OnUpdate != "require_healthy" ||
		*c.CheckRestart != (CheckRestart{Limit: 2, Grace: time.Second, IgnoreWarnings: true}) {
		t.Fatalf("check 0 = %+v %+v", c, c.CheckRestart)
	}
	if c := s.Checks[1]; *c.CheckRestart != (CheckRestart{Limit: 7, Grace: time.Minute, IgnoreWarnings: true}) {
		t.Fatalf("check 1 check_restart = %+v", c.CheckRestart)
	}
	if ts := job.TaskGroups[0].Tasks[0].Services[0]; ts.Name != "j-g-t-x" || ts.TaskName != "t" {
		t.Fatalf("task service = %+v", ts)
	}
	// Canonicalize is idempotent.
	before := job.Copy()
	job.Canonicalize()
	if d := before.Diff(job); d != nil && d.Type != DiffTypeNone {
		t.Fatalf("second Canonicalize changed the job: %+v", d)
	}
}

// A service edited between versions is one Edited object (paired by name).
func TestDiffServicesPairedByName(t *testing.T) {
	a := serviceGroup(&Service{Name: "web", PortLabel: "http", Tags: []string{"v1"}, Checks: []*ServiceCheck{httpCheck()}})
	b := serviceGroup(&Service{Name: "web", PortLabel: "http", Tags: []string{"v2"}, Checks: []*ServiceCheck{httpCheck()}})
	b.TaskGroups[0].Services[0].Checks[0].Path = "/ready"
	d := a.Diff(b)
	objs := d.TaskGroups[0].Objects
	if len(objs) != 1 || objs[0].Type != DiffTypeEdited || objs[0].Name != "Service" {
		t.Fatalf("objects = %+v", objs)
	}
	var check *ObjectDiff
	for _, o := range objs[0].Objects {
		if o.Name == "ServiceCheck" {
			check = o
		}
	}
	if check == nil || check.Type != DiffTypeEdited || len(check.Fields) != 1 || check.Fields[0].Name != "Path" || check.Fields[0].New != "/ready" {
		t.Fatalf("check diff = %+v", check)
	}
}
