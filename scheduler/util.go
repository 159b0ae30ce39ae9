package scheduler

import (
	"hash/fnv"
	"math/rand/v2"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// nodeTainted reports whether a node can no longer run its allocations: it is
// gone (nil), down or disconnected.
func nodeTainted(n *structs.Node) bool {
	return n == nil || n.TerminalStatus() || n.Status == structs.NodeStatusDisconnected
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// matchDatacenter reports whether dc matches one of the job's datacenter
// patterns: "*" matches all, and glob patterns like "dc*" match by path.Match.
func matchDatacenter(patterns []string, dc string) bool {
	for _, p := range patterns {
		if p == "*" || p == dc {
			return true
		}
		if !strings.ContainsAny(p, `*?[\`) {
			continue // not a glob: the equality above decided (and path.Match costs)
		}
		if ok, err := path.Match(p, dc); err == nil && ok {
			return true
		}
	}
	return false
}

// shuffleNodes sorts nodes by ID and shuffles them with a generator seeded
// from the eval ID and the state index, so the order replays from a
// snapshot. The loop is rand.Shuffle's (same draws, same order) without
// its swap closure.
func shuffleNodes(nodes []*structs.Node, evalID string, index uint64) {
	sortByID(nodes)
	shuffleSorted(nodes, evalID, index)
}

// shuffleSorted is shuffleNodes on nodes already sorted by ID (readyNodes'
// output): the sortedness check costs a string compare per node.
func shuffleSorted(nodes []*structs.Node, evalID string, index uint64) {
	h := fnv.New64a()
	h.Write([]byte(evalID))
	r := rand.New(rand.NewPCG(h.Sum64(), index))
	for i := len(nodes) - 1; i > 0; i-- {
		j := int(r.Uint64N(uint64(i + 1)))
		nodes[i], nodes[j] = nodes[j], nodes[i]
	}
}

// sortByID sorts nodes by ID (the state lists them so: usually a linear check).
func sortByID(nodes []*structs.Node) {
	byID := func(a, b *structs.Node) int { return strings.Compare(a.ID, b.ID) }
	if !slices.IsSortedFunc(nodes, byID) {
		slices.SortFunc(nodes, byID)
	}
}

// readyNodesInDCs returns the ready nodes in the job's datacenters and how
// many there are per datacenter (AllocMetric.NodesAvailable); a datacenter
// the job names without a glob counts 0 when it has none, so explanations
// can say "No nodes are available in datacenter ...", as Nomad's do.
func readyNodesInDCs(nodes []*structs.Node, dcs []string) ([]*structs.Node, map[string]int) {
	out := make([]*structs.Node, 0, len(nodes))
	perDC := map[string]int{}
	for _, dc := range dcs {
		if !strings.ContainsAny(dc, "*?[\\") {
			perDC[dc] = 0
		}
	}
	for _, n := range nodes {
		if !n.Ready() || !matchDatacenter(dcs, n.Datacenter) {
			continue
		}
		out = append(out, n)
		perDC[n.Datacenter]++
	}
	return out, perDC
}
