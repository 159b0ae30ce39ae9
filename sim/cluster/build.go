package cluster

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// Drivers every simulated node offers, healthy, so ordinary jobs are
// feasible.
var Drivers = []string{"raw_exec", "exec", "docker", "mock"}

// Build returns spec.Nodes ready nodes, the same for a seed: node i is in
// datacenter i mod len(Datacenters), in rack "rNN" (meta.rack, dealt round
// robin within its datacenter), of a class drawn by weight, with a CPU
// topology shaped as the Linux fingerprint reads it (logical CPUs
// 0..P-1 are the first threads of the P physical cores, socket by socket,
// P..2P-1 their second threads; one NUMA node per socket). The spec must
// be valid.
func Build(spec Spec, seed uint64) []*structs.Node {
	spec = spec.WithDefaults()
	r := rand.New(rand.NewPCG(seed, 0x636c7573746572)) // "cluster"
	total := 0
	for _, c := range spec.Classes {
		total += c.Weight
	}
	topos := make([]*structs.Topology, len(spec.Classes))
	for i, c := range spec.Classes {
		topos[i] = Topology(c)
	}
	nodes := make([]*structs.Node, spec.Nodes)
	for i := range nodes {
		ci := pickClass(spec.Classes, r.IntN(total))
		dc := spec.Datacenters[i%len(spec.Datacenters)]
		rack := (i / len(spec.Datacenters)) % spec.Racks
		id := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.Uint32()&0xffff,
			r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&0xffffffffffff)
		nodes[i] = node(id, fmt.Sprintf("sim-%05d", i), dc, fmt.Sprintf("r%02d", rack), spec.Classes[ci], topos[ci])
	}
	return nodes
}

// pickClass returns the class whose weight band holds x (0 <= x < total).
func pickClass(cs []Class, x int) int {
	for i, c := range cs {
		if x < c.Weight {
			return i
		}
		x -= c.Weight
	}
	return len(cs) - 1
}

// Topology is the class's CPU topology, as the fingerprint builds it. The
// nodes of a class share it (the scheduler only reads it).
func Topology(c Class) *structs.Topology {
	t := &structs.Topology{}
	for s := range c.Sockets {
		t.Nodes = append(t.Nodes, uint8(s))
		t.NodeMemoryMB = append(t.NodeMemoryMB, int64(c.MemoryMB/c.Sockets))
		row := make([]uint16, c.Sockets)
		for j := range row {
			row[j] = 21
			if j == s {
				row[j] = 10
			}
		}
		t.Distances = append(t.Distances, row)
	}
	phys := c.Sockets * c.CoresPerSocket
	for id := range phys * c.ThreadsPerCore {
		p := id % phys
		sib := make([]uint16, c.ThreadsPerCore)
		for k := range sib {
			sib[k] = uint16(p + k*phys)
		}
		sock := uint8(p / c.CoresPerSocket)
		t.Cores = append(t.Cores, structs.Core{SocketID: sock, NodeID: sock, ID: uint16(id),
			Siblings: sib, BaseSpeed: uint64(c.MHz), MaxSpeed: uint64(c.MHz)})
	}
	return t
}

// node builds one node the way the client's fingerprint and registration
// would describe it.
func node(id, name, dc, rack string, c Class, topo *structs.Topology) *structs.Node {
	n := len(topo.Cores)
	cores := make([]uint16, n)
	for i := range cores {
		cores[i] = uint16(i)
	}
	shares := int64(n) * int64(c.MHz)
	attrs := map[string]string{
		"kernel.name": "linux", "kernel.arch": "x86_64", "arch": "amd64", "cpu.arch": "amd64",
		"os.name": "debian", "os.version": "12", "unique.hostname": name,
		"cpu.numcores": strconv.Itoa(n), "cpu.frequency": strconv.Itoa(c.MHz),
		"cpu.totalcompute": strconv.FormatInt(shares, 10), "cpu.usablecompute": strconv.FormatInt(shares, 10),
		"cpu.reservablecores": strconv.Itoa(n), "numa.node.count": strconv.Itoa(len(topo.Nodes)),
		"memory.totalbytes": strconv.FormatInt(int64(c.MemoryMB)<<20, 10),
		"nomad.version":     "1.9.0",
	}
	per := n / len(topo.Nodes)
	for _, nn := range topo.Nodes {
		attrs[fmt.Sprintf("numa.node%d.cores", nn)] = numaCoreList(topo, nn, per)
	}
	drivers := map[string]*structs.DriverInfo{}
	for _, d := range Drivers {
		attrs["driver."+d] = "1"
		drivers[d] = &structs.DriverInfo{Detected: true, Healthy: true, HealthDescription: "Healthy"}
	}
	for k, v := range c.Attributes {
		attrs[k] = v
	}
	meta := map[string]string{"rack": rack}
	for k, v := range c.Meta {
		meta[k] = v
	}
	node := &structs.Node{
		ID: id, SecretID: id, Name: name, Datacenter: dc, NodeClass: c.Name, NodePool: "default",
		Attributes: attrs, Meta: meta, Drivers: drivers,
		Status: structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible,
		NodeResources: &structs.NodeResources{
			Cpu:        structs.NodeCpuResources{CpuShares: shares, TotalCpuCores: uint16(n), ReservableCpuCores: cores},
			Processors: structs.NodeProcessorResources{Topology: topo},
			Memory:     structs.NodeMemoryResources{MemoryMB: int64(c.MemoryMB)},
			Disk:       structs.NodeDiskResources{DiskMB: 500 * 1024},
			Networks: []*structs.NetworkResource{{Mode: "host", Device: "eth0", CIDR: "10.0.0.1/32",
				IP: "10.0.0.1", MBits: 10000}},
		},
		ReservedResources: &structs.NodeReservedResources{},
	}
	node.ComputeClass()
	return node
}

// numaCoreList is the cpuset list ("0-15,32-47") of a NUMA node's cores.
func numaCoreList(t *structs.Topology, nn uint8, per int) string {
	ids := make([]uint16, 0, per)
	for _, c := range t.Cores {
		if c.NodeID == nn {
			ids = append(ids, c.ID)
		}
	}
	out := ""
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if out != "" {
			out += ","
		}
		if i == j {
			out += strconv.Itoa(int(ids[i]))
		} else {
			out += fmt.Sprintf("%d-%d", ids[i], ids[j])
		}
		i = j + 1
	}
	return out
}
