package scheduler

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/nomadish/nomadish/structs"
)

// maxRandPortAttempts is how many random picks a dynamic port gets before
// the assigner scans the range in order (Nomad's value).
const maxRandPortAttempts = 20

// portAssignment is the host ports one placement would hold on a node,
// kept small so that ranking a node allocates nothing: the node's IP and the
// values drawn for the group's dynamic ports, in order (a window of the
// context's slab). withPorts turns it into the allocation's Networks and
// Ports. The zero value is "no networks".
type portAssignment struct {
	ok      bool
	ip      string
	dynamic []int
	// node is set when a port names a host_network: withPorts gives that
	// port the network's address on the node (feasible_network.go).
	node *structs.Node
}

// usedPorts returns the host ports taken on the node once the plan so far is
// applied: the node's reserved ports and those of every live allocation of
// proposedAllocs (the state's, minus the plan's stops and evictions, plus its
// placements), computed without building that slice. The map is the
// context's scratch map, valid until the next call.
func (c *evalContext) usedPorts(n *structs.Node) (map[int]bool, error) {
	existing, err := c.stateAllocs(n.ID)
	if err != nil {
		return nil, err
	}
	if c.portScratch == nil {
		c.portScratch = map[int]bool{}
	}
	used := c.portScratch
	clear(used)
	for _, p := range n.ReservedHostPorts() {
		used[p] = true
	}
	stops, evicts, placed := c.plan.NodeUpdate[n.ID], c.plan.NodePreemptions[n.ID], c.plan.NodeAllocation[n.ID]
	for _, a := range existing {
		if a.TerminalStatus() || hasAlloc(stops, a.ID) || hasAlloc(evicts, a.ID) || hasAlloc(placed, a.ID) {
			continue // gone, or replaced by its in-place update in placed
		}
		structs.AddHeldPorts(used, a)
	}
	for _, a := range placed {
		if !a.TerminalStatus() {
			structs.AddHeldPorts(used, a)
		}
	}
	return used, nil
}

// portRand returns the eval's port picker, seeded from the plan's eval ID
// so that a placement replays from a snapshot.
func (c *evalContext) portRand() *rand.Rand {
	if c.ports == nil {
		h := fnv.New64a()
		h.Write([]byte(c.plan.EvalID))
		c.ports = rand.New(rand.NewPCG(h.Sum64(), 0x706f727473)) // "ports"
	}
	return c.ports
}

// assignPorts picks the host ports of networks on node n: each static port
// must be free, each dynamic port is drawn from the node's range among the
// free ones. dim is "" on success, else the exhausted dimension (Nomad's
// strings: structs.DimPortCollision, structs.DimDynamicPortsFull).
func (c *evalContext) assignPorts(n *structs.Node, networks []*structs.NetworkResource) (portAssignment, string, error) {
	used, err := c.usedPorts(n)
	if err != nil {
		return portAssignment{}, "", err
	}
	start := len(c.portSlab)
	var dim string
	c.portSlab, dim = assignPortsWith(n, networks, used, c.portRand(), c.portSlab)
	if dim != "" {
		c.portSlab = c.portSlab[:start]
		return portAssignment{}, dim, nil
	}
	// The window's capacity ends at its length: later appends never reach it.
	dynamic := c.portSlab[start:len(c.portSlab):len(c.portSlab)]
	if cap(c.portSlab)-len(c.portSlab) < 64 { // start a new slab; the old one lives as long as its windows
		c.portSlab = make([]int, 0, 1024)
	}
	pa := portAssignment{ok: true, ip: n.NetworkIP(), dynamic: dynamic}
	if namesHostNetwork(networks) {
		pa.node = n
	}
	return pa, "", nil
}

// assignPortsWith checks the static ports of networks against used and
// draws their dynamic ports, appending the values to dst; it extends used
// with every port it assigns. dim is "" on success, else the exhausted
// dimension.
func assignPortsWith(n *structs.Node, networks []*structs.NetworkResource, used map[int]bool, r *rand.Rand, dst []int) ([]int, string) {
	lo, hi := n.DynamicPortRange()
	for _, nw := range networks {
		for _, p := range nw.ReservedPorts {
			if used[p.Value] {
				return dst, structs.DimPortCollision
			}
			used[p.Value] = true
		}
	}
	for _, nw := range networks {
		for range nw.DynamicPorts {
			v := pickDynamicPort(lo, hi, used, r)
			if v == 0 {
				return dst, structs.DimDynamicPortsFull
			}
			used[v] = true
			dst = append(dst, v)
		}
	}
	return dst, ""
}

// pickDynamicPort returns a free port of [lo, hi]: a few random tries, then
// the first free one in order; 0 when the range is full.
func pickDynamicPort(lo, hi int, used map[int]bool, r *rand.Rand) int {
	span := hi - lo + 1
	if span <= 0 {
		return 0
	}
	for range maxRandPortAttempts {
		if v := lo + r.IntN(span); !used[v] {
			return v
		}
	}
	for v := lo; v <= hi; v++ {
		if !used[v] {
			return v
		}
	}
	return 0
}

// withPorts gives a new allocation the ports its ranked node was assigned
// (nothing for a group without networks): AllocatedResources.Shared.Networks
// becomes the group's networks with the node's IP and the values filled in,
// and Shared.Ports the flat list, static ports first.
func withPorts(a *structs.Allocation, pa portAssignment) *structs.Allocation {
	if !pa.ok || a.AllocatedResources == nil {
		return a
	}
	shared := &a.AllocatedResources.Shared
	asks := shared.Networks
	shared.Networks, shared.Ports = make([]*structs.NetworkResource, 0, len(asks)), nil
	next := 0
	for _, nw := range asks {
		out := *nw
		out.IP = pa.ip
		out.ReservedPorts = append([]structs.Port(nil), nw.ReservedPorts...)
		out.DynamicPorts = append([]structs.Port(nil), nw.DynamicPorts...)
		for _, p := range out.ReservedPorts {
			shared.Ports = append(shared.Ports, structs.AllocatedPortMapping{Label: p.Label, Value: p.Value, To: p.To, HostIP: pa.hostIP(p)})
		}
		shared.Networks = append(shared.Networks, &out)
	}
	for _, out := range shared.Networks {
		for i := range out.DynamicPorts {
			p := &out.DynamicPorts[i]
			p.Value = pa.dynamic[next]
			next++
			shared.Ports = append(shared.Ports, structs.AllocatedPortMapping{Label: p.Label, Value: p.Value, To: p.To, HostIP: pa.hostIP(*p)})
		}
	}
	return a
}

// hostIP is the address port p is mapped on: its host_network's address
// on the node, else the node's.
func (pa portAssignment) hostIP(p structs.Port) string {
	if pa.node == nil || p.HostNetwork == "" {
		return pa.ip
	}
	if ip, ok := hostNetworkAddress(pa.node, p.HostNetwork); ok {
		return ip
	}
	return pa.ip
}

// namesHostNetwork reports whether a port of networks names a host_network.
func namesHostNetwork(networks []*structs.NetworkResource) bool {
	for _, nw := range networks {
		for _, list := range [][]structs.Port{nw.ReservedPorts, nw.DynamicPorts} {
			for _, p := range list {
				if p.HostNetwork != "" {
					return true
				}
			}
		}
	}
	return false
}

// explainPorts says why the group's ports do not fit on the node with the
// plan so far: each static port already taken, or a full dynamic range.
func explainPorts(ctx *evalContext, n *structs.Node, tg *structs.TaskGroup) ([]string, error) {
	if !tg.HasNetworks() {
		return nil, nil
	}
	used, err := ctx.usedPorts(n)
	if err != nil {
		return nil, err
	}
	var out []string
	free := 0
	lo, hi := n.DynamicPortRange()
	for v := lo; v <= hi; v++ {
		if !used[v] {
			free++
		}
	}
	dynamic := 0
	for _, nw := range tg.Networks {
		for _, p := range nw.ReservedPorts {
			if used[p.Value] {
				out = append(out, fmt.Sprintf("%s: static port %d (%q) is in use", structs.DimPortCollision, p.Value, p.Label))
			}
		}
		dynamic += len(nw.DynamicPorts)
	}
	if dynamic > free {
		out = append(out, fmt.Sprintf("%s: asks %d ports, %d free in %d-%d", structs.DimDynamicPortsFull, dynamic, free, lo, hi))
	}
	return out, nil
}
