package cluster

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseTopology(t *testing.T) {
	cases := []struct {
		in   string
		want Class
	}{
		{"2x32x2", Class{Sockets: 2, CoresPerSocket: 32, ThreadsPerCore: 2, MHz: 2400, MemoryMB: 256 * 1024}},
		{"2x32x2@2400MHz/256GiB", Class{Sockets: 2, CoresPerSocket: 32, ThreadsPerCore: 2, MHz: 2400, MemoryMB: 262144}},
		{"1x8@3.1GHz", Class{Sockets: 1, CoresPerSocket: 8, ThreadsPerCore: 1, MHz: 3100, MemoryMB: 262144}},
		{"4x16/512MiB", Class{Sockets: 4, CoresPerSocket: 16, ThreadsPerCore: 1, MHz: 2400, MemoryMB: 512}},
		{"2x16x2/1TiB", Class{Sockets: 2, CoresPerSocket: 16, ThreadsPerCore: 2, MHz: 2400, MemoryMB: 1 << 20}},
	}
	for _, c := range cases {
		got, err := ParseTopology(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v want %+v", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"", "2", "x32", "2x32x2@fast", "0x4", "2x4x9", "2x4/12PB"} {
		if _, err := ParseTopology(bad); !errors.Is(err, ErrBadSpec) {
			t.Errorf("%q: want ErrBadSpec, got %v", bad, err)
		}
	}
}

func TestBuildShapesNodesLikeTheFingerprint(t *testing.T) {
	spec := Spec{Nodes: 12, Datacenters: []string{"dc1", "dc2"}, Racks: 3, Classes: []Class{
		{Name: "big", Weight: 1, Sockets: 2, CoresPerSocket: 4, ThreadsPerCore: 2, MHz: 2000, MemoryMB: 8192, Meta: map[string]string{"tier": "gold"}},
	}}
	nodes := Build(spec, 7)
	if len(nodes) != 12 {
		t.Fatalf("got %d nodes", len(nodes))
	}
	racks := map[string]int{}
	ids := map[string]bool{}
	for i, n := range nodes {
		if want := spec.Datacenters[i%2]; n.Datacenter != want {
			t.Errorf("node %d in %s, want %s", i, n.Datacenter, want)
		}
		racks[n.Datacenter+"/"+n.Meta["rack"]]++
		ids[n.ID] = true
		if !n.Ready() || n.NodeClass != "big" || n.Meta["tier"] != "gold" || n.ComputedClass == "" {
			t.Fatalf("node %d: %+v", i, n)
		}
		if n.NodeResources.Cpu.CpuShares != 16*2000 || n.NodeResources.Cpu.TotalCpuCores != 16 {
			t.Fatalf("cpu %+v", n.NodeResources.Cpu)
		}
	}
	if len(racks) != 6 || len(ids) != 12 {
		t.Fatalf("racks %v ids %d", racks, len(ids))
	}
	topo := nodes[0].NodeResources.Processors.Topology
	// cpu 1 is socket 0's second core; its SMT sibling is cpu 9; cpu 4 is socket 1's first.
	if c := topo.Cores[1]; c.NodeID != 0 || !reflect.DeepEqual(c.Siblings, []uint16{1, 9}) {
		t.Errorf("core 1 %+v", c)
	}
	if c := topo.Cores[4]; c.NodeID != 1 || c.SocketID != 1 {
		t.Errorf("core 4 %+v", c)
	}
	if got := nodes[0].Attributes["numa.node0.cores"]; got != "0-3,8-11" {
		t.Errorf("numa.node0.cores = %q", got)
	}
	if !reflect.DeepEqual(Build(spec, 7)[5], nodes[5]) {
		t.Error("Build is not deterministic for a seed")
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	hcl := filepath.Join(dir, "c.hcl")
	os.WriteFile(hcl, []byte(`nodes = 10
datacenters = ["a", "b"]
racks = 2
class "big" {
  weight = 2
  sockets = 2
  cores_per_socket = 8
  threads_per_core = 2
  mhz = 2000
  memory_mb = 65536
  meta = { tier = "gold" }
}
`), 0o644)
	s, err := LoadFile(hcl)
	if err != nil {
		t.Fatal(err)
	}
	if s.Nodes != 10 || len(s.Classes) != 1 || s.Classes[0].Name != "big" || s.Classes[0].Meta["tier"] != "gold" {
		t.Fatalf("%+v", s)
	}
	js := filepath.Join(dir, "c.json")
	os.WriteFile(js, []byte(`{"nodes": 3, "classes": [{"name": "x", "sockets": 1, "cores_per_socket": 4, "threads_per_core": 1, "mhz": 1000, "memory_mb": 1024}]}`), 0o644)
	if s, err = LoadFile(js); err != nil || s.Nodes != 3 {
		t.Fatalf("%+v %v", s, err)
	}
	bad := map[string]string{
		"syntax.json": `{"nodes": 3,,}`,
		"field.json":  `{"nodes": 3, "colour": 1}`,
		"type.json":   `{"nodes": "three"}`,
		"range.json":  `{"nodes": 3, "classes": [{"sockets": 0}]}`,
		"bad.hcl":     "nodes = \n",
	}
	for name, text := range bad {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		_, err := LoadFile(p)
		if !errors.Is(err, ErrBadSpec) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: want ErrBadSpec naming the file, got %v", name, err)
		}
	}
}
