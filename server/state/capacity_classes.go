package state

import (
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// capacityOn records a capacity change on a node of computed class class
// ("": unknown, which wakes every blocked eval).
func (c *changes) capacityOn(class string) {
	c.capacity = true
	if class == "" {
		c.capAll = true
		return
	}
	if c.capClasses == nil {
		c.capClasses = map[string]struct{}{}
	}
	c.capClasses[class] = struct{}{}
}

// capacityOnNode records a capacity change on node id's class, read in txn
// (an unknown node counts as every class).
func (c *changes) capacityOnNode(txn *memdb.Txn, nodeID string) {
	raw, err := txn.First(tableNodes, "id", nodeID)
	if err != nil || raw == nil {
		c.capacityOn("")
		return
	}
	c.capacityOn(raw.(*structs.Node).ComputedClass)
}

// capacityIf records a change on node's class when changed holds.
func (c *changes) capacityIf(changed bool, node *structs.Node) *changes {
	if changed {
		c.capacityOn(node.ComputedClass)
	}
	return c
}

// notifyCapacity tells n about a write's capacity changes: by class when
// n is a ClassNotifier and every change had a class, else all at once.
func notifyCapacity(n Notifier, index uint64, c *changes) {
	cn, ok := n.(ClassNotifier)
	if !ok || c.capAll || len(c.capClasses) == 0 {
		n.CapacityChanged(index)
		return
	}
	classes := make([]string, 0, len(c.capClasses))
	for k := range c.capClasses {
		classes = append(classes, k)
	}
	slices.Sort(classes)
	cn.CapacityChangedOn(index, classes)
}
