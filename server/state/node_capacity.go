package state

import (
	"maps"
	"reflect"

	"github.com/nomadish/nomadish/structs"
)

// nodeCapacityChanged reports whether re-registering old as cur may let a
// blocked eval place more: cur is ready and either new, newly ready, or
// different in what feasibility and fit read (computed class, attributes,
// meta, resources, reservations). A node without a computed class counts
// as changed. Clients re-register unchanged nodes (after a fingerprint or a
// lost heartbeat); without this check each re-registration re-ran every
// blocked eval, however large and however unplaceable.
func nodeCapacityChanged(old, cur *structs.Node) bool {
	switch {
	case !cur.Ready():
		return false
	case old == nil || !old.Ready() || cur.ComputedClass == "":
		return true
	}
	return old.ComputedClass != cur.ComputedClass ||
		!maps.Equal(old.Attributes, cur.Attributes) || !maps.Equal(old.Meta, cur.Meta) ||
		!reflect.DeepEqual(old.NodeResources, cur.NodeResources) ||
		!reflect.DeepEqual(old.ReservedResources, cur.ReservedResources)
}
