package agent

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// servicesTestJob is a bridge-mode service job with group and task services
// in every shape issue 14 added, built with the official client's types.
func servicesTestJob(tag string) *api.Job {
	job := api.NewServiceJob("svc", "svc", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("app", "raw_exec").
		SetConfig("command", "/bin/sleep").SetConfig("args", []string{"300"})
	task.Resources = &api.Resources{CPU: new(50), MemoryMB: new(32)}
	task.Services = []*api.Service{{
		Name: "app-admin", PortLabel: "admin", Provider: "nomad", AddressMode: "host",
		Checks: []api.ServiceCheck{{Name: "alive", Type: "tcp", Interval: 5 * time.Second, Timeout: time.Second}},
	}}
	tg := api.NewTaskGroup("web", 1).AddTask(task)
	tg.Networks = []*api.NetworkResource{{
		Mode:     "bridge",
		Hostname: "web",
		DNS:      &api.DNSConfig{Servers: []string{"10.0.0.53"}, Searches: []string{"svc.local"}, Options: []string{"ndots:2"}},
		DynamicPorts: []api.Port{
			{Label: "http", To: 8080, HostNetwork: "default"},
			{Label: "admin", To: -1},
		},
	}}
	tg.Services = []*api.Service{{
		Name: "web", PortLabel: "http", Provider: "nomad", Tags: []string{tag}, CanaryTags: []string{"canary"},
		Meta: map[string]string{"team": "a"}, OnUpdate: "require_healthy",
		CheckRestart: &api.CheckRestart{Limit: 3, Grace: pointerTo(10 * time.Second)},
		Checks: []api.ServiceCheck{{
			Name: "ready", Type: "http", Path: "/health", Method: "GET", Interval: 10 * time.Second, Timeout: 2 * time.Second,
			Header:       map[string][]string{"X-Probe": {"1", "2"}},
			CheckRestart: &api.CheckRestart{Limit: 5, IgnoreWarnings: false},
		}, {
			Name: "script", Type: "script", TaskName: "app", Command: "/bin/true", Args: []string{"-x"},
			Interval: 30 * time.Second, Timeout: 5 * time.Second, InitialStatus: "passing",
		}},
	}}
	job.AddTaskGroup(tg)
	return job
}

func pointerTo[T any](v T) *T { return &v }

// TestOfficialClientServices registers a job with services, checks and a
// bridge network through github.com/hashicorp/nomad/api, reads every new
// field back, and plans a change to a service: the diff shows it.
func TestOfficialClientServiceBlocks(t *testing.T) {
	_, c := devAgent(t)
	jobs := c.Jobs()
	if _, _, err := jobs.Register(servicesTestJob("v1"), nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := jobs.Info("svc", nil)
	if err != nil {
		t.Fatal(err)
	}
	tg := got.TaskGroups[0]

	net := tg.Networks[0]
	wantPorts := []api.Port{{Label: "http", To: 8080, HostNetwork: "default"}, {Label: "admin", To: -1}}
	if net.Mode != "bridge" || net.Hostname != "web" || net.DNS == nil ||
		!reflect.DeepEqual(net.DNS.Servers, []string{"10.0.0.53"}) || !reflect.DeepEqual(net.DNS.Options, []string{"ndots:2"}) ||
		!reflect.DeepEqual(net.DynamicPorts, wantPorts) {
		t.Fatalf("network = %+v (dns %+v)", net, net.DNS)
	}

	if len(tg.Services) != 1 {
		t.Fatalf("group services = %+v", tg.Services)
	}
	s := tg.Services[0]
	if s.Name != "web" || s.PortLabel != "http" || s.Provider != "nomad" || !reflect.DeepEqual(s.Tags, []string{"v1"}) ||
		!reflect.DeepEqual(s.CanaryTags, []string{"canary"}) || s.Meta["team"] != "a" || s.AddressMode != "auto" ||
		s.OnUpdate != "require_healthy" {
		t.Fatalf("group service = %+v", s)
	}
	if len(s.Checks) != 2 {
		t.Fatalf("checks = %+v", s.Checks)
	}
	ready, script := s.Checks[0], s.Checks[1]
	if ready.Type != "http" || ready.Path != "/health" || ready.Interval != 10*time.Second || ready.Timeout != 2*time.Second ||
		!reflect.DeepEqual(ready.Header, map[string][]string{"X-Probe": {"1", "2"}}) {
		t.Fatalf("http check = %+v", ready)
	}
	// The service's check_restart is merged into each check; the check's
	// own limit wins.
	if cr := ready.CheckRestart; cr == nil || cr.Limit != 5 || cr.Grace == nil || *cr.Grace != 10*time.Second {
		t.Fatalf("http check_restart = %+v", cr)
	}
	if cr := script.CheckRestart; cr == nil || cr.Limit != 3 || *cr.Grace != 10*time.Second {
		t.Fatalf("script check_restart = %+v", cr)
	}
	if script.TaskName != "app" || script.Command != "/bin/true" || !reflect.DeepEqual(script.Args, []string{"-x"}) ||
		script.InitialStatus != "passing" || script.OnUpdate != "require_healthy" {
		t.Fatalf("script check = %+v", script)
	}
	ts := tg.Tasks[0].Services
	if len(ts) != 1 || ts[0].Name != "app-admin" || ts[0].TaskName != "app" || ts[0].AddressMode != "host" ||
		len(ts[0].Checks) != 1 || ts[0].Checks[0].Type != "tcp" || ts[0].Checks[0].TaskName != "app" {
		t.Fatalf("task services = %+v", ts)
	}

	// job plan sees a changed tag: one Edited service (paired by name, as
	// Nomad's diff does), not a deleted and an added one.
	plan, _, err := jobs.Plan(servicesTestJob("v2"), true, nil)
	if err != nil || plan.Diff == nil || plan.Diff.Type != "Edited" {
		t.Fatalf("plan diff %+v: %v", plan.Diff, err)
	}
	objs := plan.Diff.TaskGroups[0].Objects
	if len(objs) != 1 || objs[0].Type != "Edited" || objs[0].Name != "Service" || !diffMentions(objs, "Tags", "Tags", "v2") {
		t.Fatalf("the plan's group diff does not show the tag change: %s", dumpObjects(plan.Diff.TaskGroups[0].Objects, ""))
	}
}

// TestOfficialClientServicesInvalid: a bad check from the API is a 400 naming
// the group, service and check.
func TestOfficialClientServicesInvalid(t *testing.T) {
	_, c := devAgent(t)
	job := servicesTestJob("v1")
	job.TaskGroups[0].Services[0].Checks[0].Path = ""
	job.TaskGroups[0].Services[0].PortLabel = "nope"
	_, _, err := c.Jobs().Register(job, nil)
	if err == nil || !strings.Contains(err.Error(), "400") ||
		!strings.Contains(err.Error(), `group "web": service "web": check "ready": path is required for an http check`) ||
		!strings.Contains(err.Error(), `port "nope" is not a port label of the group's network`) {
		t.Fatalf("register: %v", err)
	}
}

// diffMentions reports whether some object diff named obj (at any depth)
// has a field diff whose name starts with field and whose new value is val.
func diffMentions(objs []*api.ObjectDiff, obj, field, val string) bool {
	for _, o := range objs {
		if o.Name == obj {
			for _, f := range o.Fields {
				if strings.HasPrefix(f.Name, field) && f.New == val {
					return true
				}
			}
		}
		if diffMentions(o.Objects, obj, field, val) {
			return true
		}
	}
	return false
}

func dumpObjects(objs []*api.ObjectDiff, indent string) string {
	var b strings.Builder
	for _, o := range objs {
		b.WriteString("\n" + indent + o.Type + " " + o.Name)
		for _, f := range o.Fields {
			b.WriteString("\n" + indent + "  " + f.Type + " " + f.Name + ": " + f.Old + " -> " + f.New)
		}
		b.WriteString(dumpObjects(o.Objects, indent+"  "))
	}
	return b.String()
}

// TestOfficialClientConnectRefused: a job whose task needs Consul's mesh
// (a connect upstream) is refused with a 400 that says so; a sidecar_service
// without upstreams is registered.
func TestOfficialClientConnectRefused(t *testing.T) {
	_, c := devAgent(t)
	job := servicesTestJob("v1")
	job.TaskGroups[0].Services[0].Provider = "consul"
	job.TaskGroups[0].Tasks[0].Services[0].Provider = "consul"
	job.TaskGroups[0].Services[0].Connect = &api.ConsulConnect{SidecarService: &api.ConsulSidecarService{
		Proxy: &api.ConsulProxy{Upstreams: []*api.ConsulUpstream{{DestinationName: "count-api", LocalBindPort: 8080}}}}}
	_, _, err := c.Jobs().Register(job, nil)
	if err == nil || !strings.Contains(err.Error(), "400") ||
		!strings.Contains(err.Error(), `service "web": the task reaches its upstreams ("count-api") only through the connect sidecar proxy, which needs Consul's service mesh`) {
		t.Fatalf("register with upstreams: %v", err)
	}
	job.TaskGroups[0].Services[0].Connect = &api.ConsulConnect{SidecarService: &api.ConsulSidecarService{}}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("register with a sidecar_service without upstreams: %v", err)
	}
}
