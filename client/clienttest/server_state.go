package clienttest

import "github.com/nomadish/nomadish/structs"

// AddAlloc stores (or replaces) an allocation as the scheduler would:
// its AllocModifyIndex moves, waking the node's watch.
func (s *FakeServer) AddAlloc(a *structs.Allocation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a = a.Copy()
	idx := s.bump()
	if a.CreateIndex == 0 {
		a.CreateIndex = idx
	}
	a.ModifyIndex, a.AllocModifyIndex = idx, idx
	s.allocs[a.ID] = a
}

// StopAlloc sets an allocation's desired status to stop.
func (s *FakeServer) StopAlloc(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.allocs[id]; a != nil {
		idx := s.bump()
		a.DesiredStatus = structs.AllocDesiredStatusStop
		a.ModifyIndex, a.AllocModifyIndex = idx, idx
	}
}

// RemoveAlloc deletes an allocation (garbage collection).
func (s *FakeServer) RemoveAlloc(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.allocs, id)
	s.bump()
}

// ForgetNode deletes a node, so its next heartbeat gets a 404.
func (s *FakeServer) ForgetNode(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.nodes, id)
	s.bump()
}

// Alloc returns a copy of a stored allocation (nil if absent).
func (s *FakeServer) Alloc(id string) *structs.Allocation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allocs[id].Copy()
}

// Node returns a copy of a registered node (nil if absent).
func (s *FakeServer) Node(id string) *structs.Node {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nodes[id].Copy()
}

// Counts returns how many registrations and heartbeats were received.
func (s *FakeServer) Counts() (registers, heartbeats int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.registers, s.heartbeats
}

// Updates returns the Node.UpdateAlloc batches received, in order.
func (s *FakeServer) Updates() [][]*structs.Allocation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]*structs.Allocation(nil), s.updates...)
}

// MarkUnknown sets an allocation's client status to unknown, as the
// servers do while its node is disconnected (AllocModifyIndex moves).
func (s *FakeServer) MarkUnknown(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.allocs[id]; a != nil {
		idx := s.bump()
		a.ClientStatus = structs.AllocClientStatusUnknown
		a.ModifyIndex, a.AllocModifyIndex = idx, idx
	}
}
