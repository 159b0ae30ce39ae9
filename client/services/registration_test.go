package services

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func testAlloc() *structs.Allocation {
	a := &structs.Allocation{ID: "a1", Namespace: "default", JobID: "j", NodeID: "n1", TaskGroup: "g",
		AllocatedResources: &structs.AllocatedResources{},
		NetworkStatus:      &structs.AllocNetworkStatus{Address: "172.26.64.5"}}
	a.AllocatedResources.Shared.Ports = []structs.AllocatedPortMapping{
		{Label: "http", Value: 25000, To: 8080, HostIP: "10.0.0.7"},
		{Label: "raw", Value: 25001, HostIP: "10.0.0.7"},
	}
	return a
}

func TestRegistrationAddress(t *testing.T) {
	node := &structs.Node{ID: "n1", Datacenter: "dc1", Attributes: map[string]string{"unique.network.ip-address": "10.0.0.7"}}
	cases := []struct {
		name      string
		svc       structs.Service
		addr      string
		port      int
		errSubstr string
	}{
		{"auto: host address and host port", structs.Service{Name: "web", PortLabel: "http"}, "10.0.0.7", 25000, ""},
		{"host", structs.Service{Name: "web", PortLabel: "http", AddressMode: "host"}, "10.0.0.7", 25000, ""},
		{"alloc: namespace address and to", structs.Service{Name: "web", PortLabel: "http", AddressMode: "alloc"}, "172.26.64.5", 8080, ""},
		{"alloc without to: the host port", structs.Service{Name: "web", PortLabel: "raw", AddressMode: "alloc"}, "172.26.64.5", 25001, ""},
		{"driver is alloc for now", structs.Service{Name: "web", PortLabel: "http", AddressMode: "driver"}, "172.26.64.5", 8080, ""},
		{"numeric label", structs.Service{Name: "web", PortLabel: "9000"}, "10.0.0.7", 9000, ""},
		{"no port", structs.Service{Name: "web"}, "10.0.0.7", 0, ""},
		{"address overrides", structs.Service{Name: "web", PortLabel: "http", Address: "example.com"}, "example.com", 25000, ""},
		{"unknown label", structs.Service{Name: "web", PortLabel: "nope"}, "", 0, `service "web": port label "nope"`},
		{"unknown mode", structs.Service{Name: "web", AddressMode: "weird"}, "", 0, `unknown address_mode "weird"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Registration(testAlloc(), node, "t", &tc.svc)
			if tc.errSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSubstr) {
					t.Fatalf("error %v, want %q", err, tc.errSubstr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Address != tc.addr || r.Port != tc.port {
				t.Fatalf("got %s:%d, want %s:%d", r.Address, r.Port, tc.addr, tc.port)
			}
			if r.ID != "_nomad-task-a1-t-web-"+tc.svc.PortLabel || r.NodeID != "n1" || r.Datacenter != "dc1" ||
				r.JobID != "j" || r.AllocID != "a1" || r.Namespace != "default" {
				t.Fatalf("registration %+v", r)
			}
		})
	}
	a := testAlloc()
	a.NetworkStatus = nil
	if _, err := Registration(a, node, "t", &structs.Service{Name: "web", PortLabel: "http", AddressMode: "alloc"}); err == nil ||
		!strings.Contains(err.Error(), "no network address") {
		t.Fatalf("alloc mode without a network: %v", err)
	}
}

func TestRegistrationCanaryTags(t *testing.T) {
	s := &structs.Service{Name: "web", Tags: []string{"live"}, CanaryTags: []string{"canary"}}
	a := testAlloc()
	a.DeploymentStatus = &structs.AllocDeploymentStatus{Canary: true}
	r, _ := Registration(a, nil, GroupOwner("g"), s)
	if r.Tags[0] != "canary" || r.ID != "_nomad-task-a1-group-g-web-" {
		t.Fatalf("canary: %+v", r)
	}
	a.DeploymentStatus.Canary = false
	if r, _ := Registration(a, nil, GroupOwner("g"), s); r.Tags[0] != "live" {
		t.Fatalf("promoted: %+v", r.Tags)
	}
	a.DeploymentStatus.Canary = true
	if r, _ := Registration(a, nil, "t", &structs.Service{Name: "web", Tags: []string{"live"}}); r.Tags[0] != "live" {
		t.Fatalf("a canary without canary_tags keeps its tags: %+v", r.Tags)
	}
}
