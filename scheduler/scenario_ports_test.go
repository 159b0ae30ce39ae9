package scheduler_test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// Port arguments of the scenario commands (testdata/ports_*.txt):
//
//	node add ... ports=20000-20002 reserved_ports=22,80   (dynamic range; reserved host ports)
//	job add ... static=http:8080,db:5432 dynamic=a,b      (the group's network block)
//	print ports                                           (every live alloc's host ports)

// nodePortArgs sets the node's IP, dynamic port range and reserved ports.
func (sc *scenario) nodePortArgs(n *structs.Node, args map[string]string) {
	n.NodeResources.Networks = []*structs.NetworkResource{{Mode: "host", Device: "eth0", IP: "10.0.0." + strings.TrimLeft(n.ID, "n")}}
	if r := args["ports"]; r != "" {
		lo, hi, _ := strings.Cut(r, "-")
		n.NodeResources.MinDynamicPort, _ = strconv.Atoi(lo)
		n.NodeResources.MaxDynamicPort, _ = strconv.Atoi(hi)
	}
	if r := args["reserved_ports"]; r != "" {
		if n.ReservedResources == nil {
			n.ReservedResources = &structs.NodeReservedResources{}
		}
		n.ReservedResources.Networks.ReservedHostPorts = r
	}
}

// jobPortArgs gives the job's group a network block.
func (sc *scenario) jobPortArgs(j *structs.Job, args map[string]string) {
	static, dynamic := list(args["static"]), list(args["dynamic"])
	if len(static)+len(dynamic) == 0 {
		return
	}
	nw := &structs.NetworkResource{Mode: "host"}
	for _, s := range static {
		label, v, _ := strings.Cut(s, ":")
		port, err := strconv.Atoi(v)
		if err != nil {
			sc.t.Fatalf("static=%q: %v", s, err)
		}
		nw.ReservedPorts = append(nw.ReservedPorts, structs.Port{Label: label, Value: port})
	}
	for _, label := range dynamic {
		nw.DynamicPorts = append(nw.DynamicPorts, structs.Port{Label: label})
	}
	j.TaskGroups[0].Networks = []*structs.NetworkResource{nw}
}

// portsText lists every live alloc's ports ("web[0] n1 http=10.0.0.1:8080"),
// and fails the test if two live allocs of a node hold the same host port.
func (sc *scenario) portsText() string {
	var out []string
	held := map[string]string{}
	for _, a := range sc.store.Allocs() {
		if a.TerminalStatus() || a.AllocatedResources == nil {
			continue
		}
		var ps []string
		for _, p := range a.AllocatedResources.Shared.Ports {
			key := fmt.Sprintf("%s:%d", a.NodeID, p.Value)
			if other := held[key]; other != "" {
				sc.t.Errorf("%s and %s both hold port %d on %s", other, a.Name, p.Value, a.NodeID)
			}
			held[key] = a.Name
			ps = append(ps, fmt.Sprintf("%s=%s:%d", p.Label, p.HostIP, p.Value))
		}
		out = append(out, fmt.Sprintf("%s %s %s", a.Name, a.NodeID, strings.Join(ps, " ")))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, "\n")
}
