package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// nodeStatusCommand is `node status [-verbose] [NODE]`: the nodes table, or
// one node's info, drivers, resources and allocations.
func nodeStatusCommand(m *Meta, args []string) int {
	f := m.newFlags("node status", "[options] [NODE]")
	verbose := f.Bool("verbose", false, "show full IDs")
	ff := addFormatFlags(f)
	pf := addPageFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if code, bad := ff.check(m); bad {
		return code
	}
	c := m.client(f)
	switch len(pos) {
	case 0:
		return listNodes(m, c, *verbose, ff, pf)
	case 1:
	default:
		return m.wrongArgs(f, "at most one argument: the node ID or prefix")
	}
	id, ok := resolveID(m, nodeMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	n, err := c.node(id)
	if err != nil {
		return m.errorf("querying node: %v", err)
	}
	if code, done := ff.print(m, n); done {
		return code
	}
	allocs, err := c.allocations("")
	if err != nil {
		return m.errorf("querying allocations: %v", err)
	}
	printNode(m, n, *verbose)
	if *verbose {
		printNodeTopology(m, c, n) // node_topology.go
	}
	printNodeDrainAndEvents(m, n)
	var mine []*structs.AllocListStub
	for _, a := range allocs {
		if a.NodeID == n.ID {
			mine = append(mine, a)
		}
	}
	fmt.Fprintln(m.Out, "\nAllocations")
	printAllocTable(m, mine, *verbose, false)
	return exitOK
}

func listNodes(m *Meta, c *apiClient, verbose bool, ff formatFlags, pf pageFlags) int {
	var nodes []*structs.NodeListStub
	next, err := c.getPage("/v1/nodes", pf.query(nil), &nodes)
	if err != nil {
		return m.errorf("querying nodes: %v", err)
	}
	if code, done := ff.print(m, nodes); done {
		return code
	}
	if len(nodes) == 0 {
		fmt.Fprintln(m.Out, "No nodes registered")
		return exitOK
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	rows := [][]string{{"ID", "Node Pool", "DC", "Name", "Class", "Drain", "Eligibility", "Status"}}
	for _, n := range nodes {
		rows = append(rows, []string{shortID(n.ID, verbose), n.NodePool, n.Datacenter, n.Name,
			orDefault(n.NodeClass, "<none>"), strconv.FormatBool(n.Drain), n.SchedulingEligibility, n.Status})
	}
	table(m.Out, rows)
	m.printNextToken(next)
	return exitOK
}

func printNode(m *Meta, n *structs.Node, verbose bool) {
	var drivers []string
	for name, d := range n.Drivers {
		if d != nil && d.Detected && d.Healthy {
			drivers = append(drivers, name)
		}
	}
	sort.Strings(drivers)
	kv(m.Out,
		"ID", shortID(n.ID, verbose),
		"Name", n.Name,
		"Node Pool", n.NodePool,
		"Class", orNone(n.NodeClass),
		"DC", n.Datacenter,
		"Drain", strconv.FormatBool(n.Drain),
		"Eligibility", n.SchedulingEligibility,
		"Status", n.Status,
		"Drivers", strings.Join(drivers, ","),
		"Uptime", orNone(n.Attributes["host.uptime"]),
	)
	if r := n.NodeResources; r != nil {
		fmt.Fprintln(m.Out, "\nNode Resources")
		table(m.Out, [][]string{{"CPU", "Memory", "Disk", "Cores"}, {
			fmt.Sprintf("%d MHz", r.Cpu.CpuShares), fmt.Sprintf("%d MiB", r.Memory.MemoryMB),
			fmt.Sprintf("%d MiB", r.Disk.DiskMB), strconv.Itoa(int(r.Cpu.TotalCpuCores)),
		}})
	}
	if verbose {
		printNodeNetwork(m.Out, n) // alloc_ports.go
		printNodeKV(m.Out, "Attributes", n.Attributes)
		printNodeKV(m.Out, "Meta", n.Meta)
	}
}
