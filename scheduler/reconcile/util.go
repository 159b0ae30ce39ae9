package reconcile

import (
	"sort"

	"github.com/nomadish/nomadish/structs"
)

// isLive reports whether an allocation is meant to run and has not finished.
func isLive(a *structs.Allocation) bool { return !a.TerminalStatus() }

// isTainted reports whether the alloc's node is in the tainted set.
func isTainted(a *structs.Allocation, tainted map[string]*structs.Node) bool {
	_, ok := tainted[a.NodeID]
	return ok
}

// lostStatus is the client status to set on an alloc stopped on a tainted node.
func lostStatus(a *structs.Allocation, tainted map[string]*structs.Node) string {
	if isTainted(a, tainted) {
		return structs.AllocClientStatusLost
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedIndexes[V any](m map[uint]V) []uint {
	keys := make([]uint, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
