package scheduler_test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// NUMA arguments of the scenario commands (testdata/numa_*.txt):
//
//	node add ... numa=2x8 [smt=true] [reserved_cores=0,1]  (2 NUMA nodes of 8 cores; with smt,
//	        core i and i+total/2 are siblings; cpu defaults to 1000 MHz per core)
//	job add ... cores=4 [numa=require|prefer|none]          (the task asks whole cores)
//	print cores                                             (every live alloc's reserved cores)

// nodeNUMAArgs gives the node a topology.
func (sc *scenario) nodeNUMAArgs(n *structs.Node, args map[string]string) {
	spec := args["numa"]
	if spec == "" {
		return
	}
	a, b, _ := strings.Cut(spec, "x")
	numa, err1 := strconv.Atoi(a)
	per, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || numa <= 0 || per <= 0 {
		sc.t.Fatalf("numa=%q: want NxM", spec)
	}
	smt := args["smt"] == "true"
	total := numa * per
	t := &structs.Topology{}
	for i := range numa {
		t.Nodes = append(t.Nodes, uint8(i))
	}
	for id := range total {
		c := structs.Core{ID: uint16(id), BaseSpeed: 1000, NodeID: uint8(id / per)}
		if smt {
			half := total / 2
			phys := id % half
			c.Siblings = []uint16{uint16(phys), uint16(phys + half)}
			c.NodeID = uint8(phys / (per / 2))
		}
		t.Cores = append(t.Cores, c)
	}
	n.NodeResources.Processors.Topology = t
	n.NodeResources.Cpu.TotalCpuCores = uint16(total)
	if _, ok := args["cpu"]; !ok {
		n.NodeResources.Cpu.CpuShares = int64(total) * 1000
	}
	if r := args["reserved_cores"]; r != "" {
		if n.ReservedResources == nil {
			n.ReservedResources = &structs.NodeReservedResources{}
		}
		for _, s := range list(r) {
			id, _ := strconv.Atoi(s)
			n.ReservedResources.Cpu.ReservedCpuCores = append(n.ReservedResources.Cpu.ReservedCpuCores, uint16(id))
		}
	}
}

// jobNUMAArgs makes the job's task ask whole cores.
func (sc *scenario) jobNUMAArgs(j *structs.Job, args map[string]string) {
	if _, ok := args["cores"]; !ok {
		return
	}
	r := j.TaskGroups[0].Tasks[0].Resources
	r.CPU, r.Cores = 0, sc.num(args, "cores", 1)
	if aff := args["numa"]; aff != "" {
		r.NUMA = &structs.NUMA{Affinity: aff}
	}
}

// coresText lists every live alloc's cores ("web[0] n1 cpu=4000 cores=[0 1 2 3]"),
// and fails the test if two live allocs of a node hold the same core.
func (sc *scenario) coresText() string {
	var out []string
	held := map[string]string{}
	for _, a := range sc.store.Allocs() {
		if a.TerminalStatus() || a.AllocatedResources == nil {
			continue
		}
		for name, t := range a.AllocatedResources.Tasks {
			if len(t.Cpu.ReservedCores) == 0 {
				continue
			}
			for _, id := range t.Cpu.ReservedCores {
				key := fmt.Sprintf("%s:%d", a.NodeID, id)
				if other := held[key]; other != "" {
					sc.t.Errorf("%s and %s both hold core %d on %s", other, a.Name, id, a.NodeID)
				}
				held[key] = a.Name
			}
			out = append(out, fmt.Sprintf("%s %s %s cpu=%d cores=%v", a.Name, a.NodeID, name, t.Cpu.CpuShares, t.Cpu.ReservedCores))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, "\n")
}
