package cli

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/client/fingerprint"
	"github.com/nomadish/nomadish/structs"
)

// printNodeTopology prints the node's CPU topology for `node status
// -verbose`, with the cores its running allocations hold (read from GET
// /v1/node/{id}/allocations). A node without a fingerprinted topology
// prints nothing; a failed allocations query is a warning and the
// topology is printed without them.
func printNodeTopology(m *Meta, c *apiClient, n *structs.Node) {
	if n.NodeResources == nil || n.NodeResources.Processors.Topology == nil {
		return
	}
	var allocs []*structs.Allocation
	if _, err := c.get("/v1/node/"+esc(n.ID)+"/allocations", nil, &allocs); err != nil {
		fmt.Fprintf(m.Err, "Warning: querying the node's allocations for its cores: %v\n", err)
	}
	writeNodeTopology(m.Out, n, allocs)
}

// coreHold is one task's reserved cores on the node.
type coreHold struct {
	alloc *structs.Allocation
	task  string
	cores []uint16
}

// coreHolds returns the cores the non-terminal allocations' tasks hold,
// ordered by allocation name and task.
func coreHolds(allocs []*structs.Allocation) []coreHold {
	var out []coreHold
	for _, a := range allocs {
		if a == nil || a.TerminalStatus() || a.AllocatedResources == nil {
			continue
		}
		for task, tr := range a.AllocatedResources.Tasks {
			if tr != nil && len(tr.Cpu.ReservedCores) > 0 {
				cores := slices.Sorted(slices.Values(tr.Cpu.ReservedCores))
				out = append(out, coreHold{alloc: a, task: task, cores: cores})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].alloc.Name != out[j].alloc.Name {
			return out[i].alloc.Name < out[j].alloc.Name
		}
		if out[i].alloc.ID != out[j].alloc.ID {
			return out[i].alloc.ID < out[j].alloc.ID
		}
		return out[i].task < out[j].task
	})
	return out
}

// writeNodeTopology writes three sections: a summary of the CPU (sockets,
// cores, speeds), one row per NUMA node (memory, cores, and which are free,
// reserved by the client's config, disabled (offline) and allocated, and
// its distances), and the cores each allocation's task holds.
func writeNodeTopology(w io.Writer, n *structs.Node, allocs []*structs.Allocation) {
	t := n.NodeResources.Processors.Topology
	holds := coreHolds(allocs)
	held := map[uint16]bool{}
	for _, h := range holds {
		for _, id := range h.cores {
			held[id] = true
		}
	}
	var reservedByClient []uint16
	if n.ReservedResources != nil {
		reservedByClient = n.ReservedResources.Cpu.ReservedCpuCores
	}
	fmt.Fprintln(w, "\nCPU Topology")
	kv(w, cpuSummary(n, t)...)

	rows := [][]string{{"NUMA Node", "Memory", "Cores", "Free", "Reserved", "Disabled", "Allocated", "Distances"}}
	for i, node := range t.Nodes {
		var all, free, reserved, disabled, allocated []uint16
		for _, c := range t.Cores {
			if c.NodeID != node {
				continue
			}
			all = append(all, c.ID)
			switch {
			case slices.Contains(reservedByClient, c.ID):
				reserved = append(reserved, c.ID)
			case !n.UsableCore(c):
				disabled = append(disabled, c.ID)
			case held[c.ID]:
				allocated = append(allocated, c.ID)
			default:
				free = append(free, c.ID)
			}
		}
		mem := "-"
		if i < len(t.NodeMemoryMB) {
			mem = fmt.Sprintf("%d MiB", t.NodeMemoryMB[i])
		}
		var dist []string
		if i < len(t.Distances) {
			for _, d := range t.Distances[i] {
				dist = append(dist, strconv.Itoa(int(d)))
			}
		}
		rows = append(rows, []string{strconv.Itoa(int(node)), mem, cpuset(all), cpuset(free), cpuset(reserved),
			cpuset(disabled), cpuset(allocated), orDefault(strings.Join(dist, " "), "-")})
	}
	fmt.Fprintln(w)
	table(w, rows)
	if len(holds) == 0 {
		return
	}
	fmt.Fprintln(w, "\nAllocated Cores")
	rows = [][]string{{"Alloc ID", "Name", "Task", "NUMA Node", "Cores"}}
	for _, h := range holds {
		rows = append(rows, []string{shortID(h.alloc.ID, false), h.alloc.Name, h.task, numaNodesOf(t, h.cores), cpuset(h.cores)})
	}
	table(w, rows)
}

// cpuSummary returns the kv pairs of the CPU: sockets, NUMA nodes, logical
// cores (and how many the scheduler may reserve), SMT threads per core, and
// base/max speed of the first core ("guessed" without cpufreq).
func cpuSummary(n *structs.Node, t *structs.Topology) []string {
	sockets := map[uint8]bool{}
	smt := 1
	for _, c := range t.Cores {
		sockets[c.SocketID] = true
		smt = max(smt, len(c.Siblings))
	}
	base, maxSpeed := "-", "-"
	if len(t.Cores) > 0 {
		c := t.Cores[0]
		base, maxSpeed = fmt.Sprintf("%d MHz", c.BaseSpeed), fmt.Sprintf("%d MHz", c.MaxSpeed)
		if c.GuessSpeed {
			base += " (guessed)"
		}
	}
	return []string{
		"Sockets", strconv.Itoa(len(sockets)),
		"NUMA Nodes", strconv.Itoa(len(t.Nodes)),
		"Cores", fmt.Sprintf("%d (%d reservable)", len(t.Cores), len(n.NodeResources.Cpu.ReservableCpuCores)),
		"Threads/Core", strconv.Itoa(smt),
		"Base Speed", base,
		"Max Speed", maxSpeed,
	}
}

// numaNodesOf names the NUMA nodes holding cores ("0", "0,1"; "?" for a
// core the topology does not have).
func numaNodesOf(t *structs.Topology, cores []uint16) string {
	seen := map[string]bool{}
	var out []string
	for _, id := range cores {
		name := "?"
		for _, c := range t.Cores {
			if c.ID == id {
				name = strconv.Itoa(int(c.NodeID))
				break
			}
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// cpuset renders sorted core IDs as a cpuset list, "-" when empty.
func cpuset(ids []uint16) string {
	return orDefault(fingerprint.FormatCPUSet(ids), "-")
}
