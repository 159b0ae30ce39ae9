package jobspec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestParseNetwork(t *testing.T) {
	src := `job "web" {
  group "g" {
    network {
      port "http" {}
      port "db" {
        static = 5432
      }
      port "app" {
        to           = 8080
        host_network = "public"
      }
      dns { servers = ["1.1.1.1"] }
    }
    task "t" { driver = "raw_exec" }
  }
}`
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "n.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	want := []*structs.NetworkResource{{
		Mode:          "host",
		DNS:           &structs.DNSConfig{Servers: []string{"1.1.1.1"}},
		ReservedPorts: []structs.Port{{Label: "db", Value: 5432}},
		DynamicPorts:  []structs.Port{{Label: "http"}, {Label: "app", To: 8080, HostNetwork: "public"}},
	}}
	if got := job.TaskGroups[0].Networks; !reflect.DeepEqual(got, want) {
		t.Fatalf("networks = %+v, want %+v", got, want)
	}
	job.Canonicalize()
	if err := job.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestParseNetworkModes(t *testing.T) {
	for _, tc := range []struct {
		body string
		want structs.NetworkResource
	}{
		{`mode = "bridge"
      hostname = "web-${NOMAD_ALLOC_INDEX}"
      dns {
        servers  = ["10.0.0.1", "fd00::1"]
        searches = ["svc.local"]
        options  = ["ndots:2"]
      }
      port "http" { to = 8080 }
      port "same" { to = -1 }
      port "admin" {
        static       = 9000
        to           = 90
        host_network = "private"
      }`, structs.NetworkResource{
			Mode: "bridge", Hostname: "web-${NOMAD_ALLOC_INDEX}",
			DNS:           &structs.DNSConfig{Servers: []string{"10.0.0.1", "fd00::1"}, Searches: []string{"svc.local"}, Options: []string{"ndots:2"}},
			ReservedPorts: []structs.Port{{Label: "admin", Value: 9000, To: 90, HostNetwork: "private"}},
			DynamicPorts:  []structs.Port{{Label: "http", To: 8080}, {Label: "same", To: -1}},
		}},
		{`mode = "none"`, structs.NetworkResource{Mode: "none"}},
		{`mode = "cni/mynet"
      port "http" { to = 80 }`, structs.NetworkResource{Mode: "cni/mynet", DynamicPorts: []structs.Port{{Label: "http", To: 80}}}},
		{`mode = "host"`, structs.NetworkResource{Mode: "host"}},
	} {
		src := "job \"web\" {\n  group \"g\" {\n    network {\n      " + tc.body + "\n    }\n    task \"t\" { driver = \"raw_exec\" }\n  }\n}"
		job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "n.hcl", Body: []byte(src)})
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		if len(warnings) != 0 {
			t.Errorf("%s: warnings %q", tc.body, warnings)
		}
		if got := job.TaskGroups[0].Networks; len(got) != 1 || !reflect.DeepEqual(*got[0], tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.body, got[0], tc.want)
		}
		job.Canonicalize()
		if err := job.Validate(); err != nil {
			t.Errorf("%s: validate: %v", tc.body, err)
		}
		if got := job.TaskGroups[0].NetworkMode(); got != tc.want.Mode {
			t.Errorf("NetworkMode = %q, want %q", got, tc.want.Mode)
		}
	}
}

func TestParseNetworkErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`port "a" {}
      port "a" {}`, `n.hcl:5:12: Duplicate port label`},
		{`port "a" { static = 70000 }`, `n.hcl:4:27: Invalid static port`},
		{`port "a" { static = 0 }`, `n.hcl:4:27: Invalid static port`},
		{`port "a" { to = -2 }`, `n.hcl:4:23: Invalid to port`},
		{`port "a" { static = 80 }
      port "b" { static = 80 }`, `n.hcl:5:27: Duplicate static port`},
		{`mode = "nat"`, `n.hcl:4:14: Invalid network mode; The network mode "nat" must be`},
		{`mode = "cni/"`, `n.hcl:4:14: Invalid network mode; The network mode "cni/" needs the name of a CNI network`},
		{`hostname = "web"`, `n.hcl:4:18: Invalid hostname; The hostname "web" needs a network namespace`},
		{`mode = "bridge"
      dns { servers = ["1.1.1.1", "dns.example"] }`, `n.hcl:5:23: Invalid DNS server; The dns server "dns.example" is not an IP address`},
		{`port "a" { to = -1 }`, `n.hcl:4:23: Invalid to port; The port's to = -1 (the host port) is only valid in "bridge" mode`},
		{`mode = "bridge"
      port "a" { to = -2 }`, `n.hcl:5:23: Invalid to port; The port's to -2 out of range`},
		{`port {}`, `n.hcl:4:12: Missing name for port`},
		{`port "a" { bogus = 1 }`, `n.hcl:4:18: Unsupported argument`},
	} {
		src := "job \"web\" {\n  group \"g\" {\n    network {\n      " + tc.body + "\n    }\n    task \"t\" { driver = \"raw_exec\" }\n  }\n}"
		_, err := Parse(&ParseConfig{Path: "n.hcl", Body: []byte(src)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.body, err, tc.want)
		}
	}
}
