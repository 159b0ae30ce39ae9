package structs

import (
	"hash/fnv"
	"io"
	"sort"
	"strconv"
	"strings"
)

// ComputeClass sets n.ComputedClass: a hash of everything constraints may
// read except the node's unique values, so that two nodes of one computed
// class satisfy the same non-escaped constraints (Constraint.Escaped). It
// covers the datacenter, pool, node class, attributes and meta (keys starting
// with "unique." left out) and the drivers' detected/healthy state. The
// server calls it when a node registers; the scheduler caches constraint
// results per computed class and does not cache for nodes without one.
func (n *Node) ComputeClass() {
	h := fnv.New64a()
	field := func(parts ...string) {
		for _, p := range parts {
			io.WriteString(h, p)
			h.Write([]byte{0})
		}
	}
	field("dc", n.Datacenter, "pool", NodePoolOf(n), "class", n.NodeClass)
	hashMap := func(kind string, m map[string]string) {
		keys := make([]string, 0, len(m))
		for k := range m {
			if !strings.HasPrefix(k, "unique.") {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			field(kind, k, m[k])
		}
	}
	hashMap("attr", n.Attributes)
	hashMap("meta", n.Meta)
	names := make([]string, 0, len(n.Drivers))
	for name := range n.Drivers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		d := n.Drivers[name]
		if d == nil {
			continue
		}
		field("driver", name, strconv.FormatBool(d.Detected), strconv.FormatBool(d.Healthy))
	}
	n.ComputedClass = "v1:" + strconv.FormatUint(h.Sum64(), 10)
}
