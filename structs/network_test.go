package structs

import (
	"reflect"
	"strings"
	"testing"
)

func portAlloc(id string, ports ...int) *Allocation {
	a := &Allocation{ID: id, DesiredStatus: AllocDesiredStatusRun, ClientStatus: AllocClientStatusRunning,
		AllocatedResources: &AllocatedResources{Tasks: map[string]*AllocatedTaskResources{
			"t": {Cpu: AllocatedCpuResources{CpuShares: 100}, Memory: AllocatedMemoryResources{MemoryMB: 100}}}}}
	for _, p := range ports {
		a.AllocatedResources.Shared.Ports = append(a.AllocatedResources.Shared.Ports, AllocatedPortMapping{Label: "p", Value: p})
	}
	return a
}

func TestAllocsFitPorts(t *testing.T) {
	node := &Node{ID: "n1", NodeResources: &NodeResources{Cpu: NodeCpuResources{CpuShares: 4000},
		Memory: NodeMemoryResources{MemoryMB: 4096}, Disk: NodeDiskResources{DiskMB: 10000}},
		ReservedResources: &NodeReservedResources{Networks: NodeReservedNetworkResources{ReservedHostPorts: "22,8000-8002"}}}
	stopped := portAlloc("s", 8080)
	stopped.DesiredStatus = AllocDesiredStatusStop
	for _, tc := range []struct {
		name   string
		allocs []*Allocation
		fit    bool
	}{
		{"no ports", []*Allocation{portAlloc("a"), portAlloc("b")}, true},
		{"distinct ports", []*Allocation{portAlloc("a", 8080, 20001), portAlloc("b", 8081)}, true},
		{"same port twice", []*Allocation{portAlloc("a", 8080), portAlloc("b", 8080)}, false},
		{"same port in one alloc", []*Allocation{portAlloc("a", 9000, 9000)}, false},
		{"node reserved port", []*Allocation{portAlloc("a", 22)}, false},
		{"node reserved range", []*Allocation{portAlloc("a", 8001)}, false},
		{"terminal alloc frees its port", []*Allocation{stopped, portAlloc("b", 8080)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fit, dim, _ := AllocsFit(node, tc.allocs)
			if fit != tc.fit {
				t.Fatalf("fit = %v (%s), want %v", fit, dim, tc.fit)
			}
			if !fit && dim != DimPortCollision {
				t.Errorf("dim = %q, want %q", dim, DimPortCollision)
			}
		})
	}
}

func TestValidateNetworks(t *testing.T) {
	for _, tc := range []struct {
		name string
		nets []*NetworkResource
		want string // "" valid
	}{
		{"ok", []*NetworkResource{{Mode: "host", ReservedPorts: []Port{{Label: "a", Value: 80}},
			DynamicPorts: []Port{{Label: "b", To: 8080}}}}, ""},
		{"duplicate label", []*NetworkResource{{ReservedPorts: []Port{{Label: "a", Value: 80}},
			DynamicPorts: []Port{{Label: "a"}}}}, `port label "a" defined more than once`},
		{"static twice", []*NetworkResource{{ReservedPorts: []Port{{Label: "a", Value: 80}, {Label: "b", Value: 80}}}},
			`static port 80 already used by port "a"`},
		{"static out of range", []*NetworkResource{{ReservedPorts: []Port{{Label: "a", Value: 70000}}}}, "out of range"},
		{"no label", []*NetworkResource{{DynamicPorts: []Port{{}}}}, "port with no label"},
		{"bridge", []*NetworkResource{{Mode: "bridge", DynamicPorts: []Port{{Label: "a", To: -1}}}}, ""},
		{"cni", []*NetworkResource{{Mode: "cni/mynet"}}, ""},
		{"none", []*NetworkResource{{Mode: "none"}}, ""},
		{"cni without name", []*NetworkResource{{Mode: "cni/"}}, `needs the name of a CNI network`},
		{"unknown mode", []*NetworkResource{{Mode: "nat"}}, `network mode "nat" must be`},
		{"to -1 in host mode", []*NetworkResource{{DynamicPorts: []Port{{Label: "a", To: -1}}}}, `only valid in "bridge" mode`},
		{"to -2", []*NetworkResource{{Mode: "bridge", DynamicPorts: []Port{{Label: "a", To: -2}}}}, `to -2 out of range`},
		{"hostname in host mode", []*NetworkResource{{Hostname: "web"}}, `cannot be set in "host" mode`},
		{"hostname not DNS", []*NetworkResource{{Mode: "bridge", Hostname: "a b"}}, `not a valid DNS name`},
		{"hostname interpolated", []*NetworkResource{{Mode: "bridge", Hostname: "${NOMAD_ALLOC_NAME}"}}, ""},
		{"dns server", []*NetworkResource{{Mode: "bridge", DNS: &DNSConfig{Servers: []string{"1.1.1.1", "dns.example"}}}}, `dns server "dns.example" is not an IP address`},
		{"two networks", []*NetworkResource{{}, {}}, "only one network block"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := &TaskGroup{Name: "g", Networks: tc.nets}
			var errs MultiError
			tg.validateNetworks(&errs)
			err := errs.ErrorOrNil()
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

func TestParsePortRanges(t *testing.T) {
	got, err := ParsePortRanges("80, 22,8000-8002,80")
	if err != nil || !reflect.DeepEqual(got, []int{22, 80, 8000, 8001, 8002}) {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"x", "10-5", "0", "70000", "1-x"} {
		if _, err := ParsePortRanges(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestNodeDynamicPortRange(t *testing.T) {
	n := &Node{}
	if lo, hi := n.DynamicPortRange(); lo != DefaultMinDynamicPort || hi != DefaultMaxDynamicPort {
		t.Fatalf("default range %d-%d", lo, hi)
	}
	n.NodeResources = &NodeResources{MinDynamicPort: 30000, MaxDynamicPort: 30010}
	if lo, hi := n.DynamicPortRange(); lo != 30000 || hi != 30010 {
		t.Fatalf("range %d-%d", lo, hi)
	}
}

func TestDiffNetworks(t *testing.T) {
	old := &Job{ID: "j", TaskGroups: []*TaskGroup{{Name: "g", Networks: []*NetworkResource{{Mode: "host",
		ReservedPorts: []Port{{Label: "http", Value: 8080}}}}}}}
	cur := old.Copy()
	cur.TaskGroups[0].Networks[0].ReservedPorts[0].Value = 9090
	d := old.Diff(cur)
	if len(d.TaskGroups) != 1 || d.TaskGroups[0].Type != DiffTypeEdited {
		t.Fatalf("diff = %+v", d)
	}
	// Networks diff as a set, as Nomad's do: the old one deleted, the new one added.
	var types []string
	for _, o := range d.TaskGroups[0].Objects {
		if o.Name == "NetworkResource" {
			types = append(types, o.Type)
		}
	}
	if !reflect.DeepEqual(types, []string{DiffTypeDeleted, DiffTypeAdded}) {
		t.Fatalf("network diffs %v, want deleted then added", types)
	}
}
