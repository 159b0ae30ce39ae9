package scheduler

import "github.com/nomadish/nomadish/structs"

// selectPreferring is SelectWith that first tries node alone: the previous
// node of a replacement whose group has a sticky or migrating ephemeral
// disk (Nomad's preferred node). When node cannot take the group, the whole
// node list is tried as usual, and that selection's metric is returned.
func (s *genericStack) selectPreferring(tg *structs.TaskGroup, opts *selectOptions, node *structs.Node) (*rankedNode, *structs.AllocMetric, error) {
	if node == nil {
		return s.SelectWith(tg, opts)
	}
	nodes, offset, slotted := s.source.nodes, s.source.offset, s.source.slotted
	s.source.nodes, s.source.offset, s.source.slotted = []*structs.Node{node}, 0, false
	option, metric, err := s.SelectWith(tg, opts)
	s.source.nodes, s.source.offset, s.source.slotted = nodes, offset, slotted
	if option != nil || err != nil {
		return option, metric, err
	}
	return s.SelectWith(tg, opts)
}

// preferredNode returns the node of p's previous allocation when p's group
// keeps its ephemeral disk (sticky or migrate) and that node is among the
// ready candidates (in the job's pool and datacenters); nil otherwise.
func preferredNode(p *structs.Allocation, tg *structs.TaskGroup, ready []*structs.Node) *structs.Node {
	if p == nil || tg.EphemeralDisk == nil || !(tg.EphemeralDisk.Sticky || tg.EphemeralDisk.Migrate) {
		return nil
	}
	for _, n := range ready {
		if n.ID == p.NodeID {
			return n
		}
	}
	return nil
}
