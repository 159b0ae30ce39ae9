package jobspec

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// allowedBridgeWarning matches the warnings a Nomad bridge-mode job file may
// draw: Consul (connect, the consul provider) and blocks other issues own.
var allowedBridgeWarning = regexp.MustCompile(`: (Consul Connect ignored|Consul service served by nomadish|Unsupported (block|argument) ignored); `)

// bridgeVars are the -var values a file needs (it declares the variable
// without a default; Nomad's e2e test passes one).
var bridgeVars = map[string][]string{"e2e__cni__config_format.nomad.hcl": {"format=json"}}

// TestParseNomadBridgeJobs parses each of the bridge-mode job files of
// Nomad's repository that Nomad accepts (testdata/nomad-bridge, see its
// README): no error, warnings only for Consul and other issues' blocks, and
// every group in a mode of its own.
func TestParseNomadBridgeJobs(t *testing.T) {
	files, err := filepath.Glob("testdata/nomad-bridge/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range files {
		if strings.HasSuffix(path, "README.md") {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			job, warnings, err := ParseWithWarnings(&ParseConfig{Path: path, ArgVars: bridgeVars[filepath.Base(path)]})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			for _, w := range warnings {
				if !allowedBridgeWarning.MatchString(w) {
					t.Errorf("unexpected warning: %s", w)
				}
			}
			modes := 0
			for _, tg := range job.TaskGroups {
				if m := tg.NetworkMode(); m != structs.NetworkModeHost {
					modes++
				}
			}
			if modes == 0 {
				t.Errorf("no group of %s leaves host mode", path)
			}
		})
	}
	if n < 15 {
		t.Fatalf("only %d job files in testdata/nomad-bridge", n)
	}
}

// A few parsed values of the bridge files, as Nomad reads them.
func TestParseNomadBridgeValues(t *testing.T) {
	parse := func(name string, vars ...string) *structs.Job {
		t.Helper()
		job, err := Parse(&ParseConfig{Path: filepath.Join("testdata/nomad-bridge", name), ArgVars: vars})
		if err != nil {
			t.Fatal(err)
		}
		return job
	}
	tg := parse("jobspec__tg-network.hcl").TaskGroups[0]
	n := tg.Networks[0]
	if n.Mode != "bridge" || len(n.ReservedPorts) != 1 || n.ReservedPorts[0] != (structs.Port{Label: "http", Value: 80, To: 8080, HostNetwork: "public"}) ||
		n.DNS == nil || strings.Join(n.DNS.Options, ",") != "ndots:2,edns0" {
		t.Errorf("tg-network network = %+v", n)
	}
	if s := tg.Services[0]; s.Name != "connect-service" || s.PortLabel != "1234" || s.Connect["sidecar_task"] == nil {
		t.Errorf("tg-network service = %+v", s)
	}

	tg = parse("e2e__pledge__bridge.hcl").TaskGroups[0]
	if s := tg.Services[0]; s.Name != "pybridge" || s.Provider != "nomad" || s.PortLabel != "http" ||
		s.Tags[0] != "public=${attr.unique.platform.aws.public-ipv4}" || len(s.Checks) != 1 ||
		s.Checks[0].Type != "http" || s.Checks[0].Path != "/index.html" || s.Checks[0].Timeout.String() != "1s" {
		t.Errorf("pledge service = %+v", s)
	}
	if p := tg.Networks[0].DynamicPorts; len(p) != 1 || p[0] != (structs.Port{Label: "http", To: 8181}) {
		t.Errorf("pledge ports = %+v", p)
	}

	if m := parse("e2e__cni__config_format.nomad.hcl", "format=conf").TaskGroups[0].NetworkMode(); m != "cni/test-loopback-conf" {
		t.Errorf("cni mode = %q", m)
	}
	if h := parse("e2e__networking__docker_bridged_hostname_interpolation.nomad").TaskGroups[0].Networks[0].Hostname; h != "mylittlepony-${NOMAD_ALLOC_INDEX}" {
		t.Errorf("hostname = %q", h)
	}
	job := parse("e2e__servicediscovery__simple_lb_replicas.nomad")
	if len(job.TaskGroups) != 3 || job.TaskGroups[2].Services[0].Tags[0] != "r3" {
		t.Errorf("simple_lb_replicas = %+v", job.TaskGroups)
	}
	// Every file that Nomad accepts passes nomadish's validation too, once
	// canonicalized (jobcheck's mesh refusal aside).
	for _, name := range []string{"jobspec__tg-network-with-hostname.hcl", "e2e__pledge__bridge.hcl",
		"e2e__servicediscovery__simple_lb_replicas.nomad", "e2e__networking__docker_bridged_ipv6.nomad.hcl"} {
		job := parse(name)
		job.Canonicalize()
		if err := job.Validate(); err != nil {
			t.Errorf("%s: validate: %v", name, err)
		}
	}
	if _, err := os.Stat("testdata/nomad-bridge/README.md"); err != nil {
		t.Error(err)
	}
}
