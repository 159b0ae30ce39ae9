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

func TestParseNetworkErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`port "a" {}
      port "a" {}`, `n.hcl:5:12: Duplicate port label`},
		{`port "a" { static = 70000 }`, `n.hcl:4:27: Invalid static port`},
		{`port "a" { static = 0 }`, `n.hcl:4:27: Invalid static port`},
		{`port "a" { to = -2 }`, `n.hcl:4:23: Invalid to port`},
		{`port "a" { static = 80 }
      port "b" { static = 80 }`, `n.hcl:5:27: Duplicate static port`},
		{`mode = "overlay"`, `n.hcl:4:14: Unsupported network mode`},
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
