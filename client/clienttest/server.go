package clienttest

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// FakeServer is an in-memory server answering the RPCs a client makes:
// Node.Register, Node.UpdateStatus, Node.GetClientAllocs (blocking),
// Alloc.GetAllocs and Node.UpdateAlloc. Safe for concurrent use.
type FakeServer struct {
	// HeartbeatTTL is returned by Register and UpdateStatus.
	HeartbeatTTL time.Duration
	// Servers are returned by Register and UpdateStatus as the servers'
	// RPC addresses; set before the first call.
	Servers []string

	mu         sync.Mutex
	index      uint64
	changed    chan struct{} // closed and replaced on every write
	nodes      map[string]*structs.Node
	registers  int
	heartbeats int
	allocs     map[string]*structs.Allocation
	updates    [][]*structs.Allocation
	fail       map[string]error
	services   fakeServices  // server_services.go
	closed     chan struct{} // closed by Close: blocking queries return
	closeOnce  sync.Once
}

// NewFakeServer returns an empty server with a 10 s heartbeat TTL.
func NewFakeServer() *FakeServer {
	return &FakeServer{HeartbeatTTL: 10 * time.Second, changed: make(chan struct{}), closed: make(chan struct{}),
		nodes: map[string]*structs.Node{}, allocs: map[string]*structs.Allocation{}, fail: map[string]error{}}
}

// bump advances the index and wakes blocking queries. Caller holds mu.
func (s *FakeServer) bump() uint64 {
	s.index++
	close(s.changed)
	s.changed = make(chan struct{})
	return s.index
}

// Close ends blocking queries (with an error), like a server shutting
// down; later calls still work.
func (s *FakeServer) Close() { s.closeOnce.Do(func() { close(s.closed) }) }

// FailNext makes the next call of method fail with err.
func (s *FakeServer) FailNext(method string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[method] = err
}

// RPC dispatches one call.
func (s *FakeServer) RPC(method string, args, reply any) error {
	s.mu.Lock()
	if err := s.fail[method]; err != nil {
		delete(s.fail, method)
		s.mu.Unlock()
		return err
	}
	s.mu.Unlock()
	switch method {
	case structs.NodeRegisterRPC:
		return s.register(args.(*structs.NodeRegisterRequest), reply.(*structs.NodeUpdateResponse))
	case structs.NodeUpdateStatusRPC:
		return s.updateStatus(args.(*structs.NodeUpdateStatusRequest), reply.(*structs.NodeUpdateResponse))
	case structs.NodeGetClientAllocsRPC:
		return s.getClientAllocs(args.(*structs.NodeSpecificRequest), reply.(*structs.NodeClientAllocsResponse))
	case structs.AllocGetAllocsRPC:
		return s.getAllocs(args.(*structs.AllocsGetRequest), reply.(*structs.AllocsGetResponse))
	case structs.NodeUpdateAllocRPC:
		return s.updateAlloc(args.(*structs.AllocUpdateRequest))
	case structs.ServiceRegistrationUpsertRPC, structs.ServiceRegistrationDeleteByIDRPC, structs.ServiceRegistrationDeleteByAllocID:
		return s.serviceRPC(method, args) // server_services.go
	}
	return fmt.Errorf("fake server: unknown method %q", method)
}

func (s *FakeServer) register(req *structs.NodeRegisterRequest, resp *structs.NodeUpdateResponse) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nodes[req.Node.ID] = req.Node.Copy()
	s.registers++
	resp.HeartbeatTTL = s.HeartbeatTTL
	resp.Servers = s.serverInfos()
	resp.NodeModifyIndex = s.bump()
	resp.Index = s.index
	return nil
}

// serverInfos is Servers as reply entries.
func (s *FakeServer) serverInfos() []*structs.NodeServerInfo {
	var out []*structs.NodeServerInfo
	for _, a := range s.Servers {
		out = append(out, &structs.NodeServerInfo{RPCAdvertiseAddr: a})
	}
	return out
}

func (s *FakeServer) updateStatus(req *structs.NodeUpdateStatusRequest, resp *structs.NodeUpdateResponse) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nodes[req.NodeID]
	if n == nil {
		return structs.ErrNodeNotFound
	}
	if n.SecretID != req.SecretID {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "bad secret")
	}
	s.heartbeats++
	n.Status = req.Status
	resp.HeartbeatTTL = s.HeartbeatTTL
	resp.Servers = s.serverInfos()
	resp.Index = s.index
	return nil
}

func (s *FakeServer) getClientAllocs(req *structs.NodeSpecificRequest, resp *structs.NodeClientAllocsResponse) error {
	maxWait := req.MaxQueryTime
	if maxWait <= 0 {
		maxWait = 5 * time.Minute
	}
	timeout := time.NewTimer(maxWait)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		if s.nodes[req.NodeID] == nil {
			s.mu.Unlock()
			return structs.ErrNodeNotFound
		}
		if s.index > req.MinQueryIndex {
			resp.Allocs = map[string]uint64{}
			for id, a := range s.allocs {
				if a.NodeID == req.NodeID {
					resp.Allocs[id] = a.AllocModifyIndex
				}
			}
			resp.Index = s.index
			s.mu.Unlock()
			return nil
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-s.closed:
			return errors.New("fake server: shut down")
		case <-timeout.C:
			s.mu.Lock()
			resp.Index = s.index
			resp.Allocs = map[string]uint64{}
			for id, a := range s.allocs {
				if a.NodeID == req.NodeID {
					resp.Allocs[id] = a.AllocModifyIndex
				}
			}
			s.mu.Unlock()
			return nil
		}
	}
}

func (s *FakeServer) getAllocs(req *structs.AllocsGetRequest, resp *structs.AllocsGetResponse) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range req.AllocIDs {
		if a := s.allocs[id]; a != nil {
			resp.Allocs = append(resp.Allocs, a.Copy())
		}
	}
	resp.Index = s.index
	return nil
}

func (s *FakeServer) updateAlloc(req *structs.AllocUpdateRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range req.Alloc {
		if a := s.allocs[u.ID]; a != nil && !s.nodes[a.NodeID].SecretMatches(req.AuthToken) {
			return structs.ErrNodeSecretMismatch // as the real server: the node's secret is required
		}
	}
	batch := make([]*structs.Allocation, 0, len(req.Alloc))
	for _, u := range req.Alloc {
		u = u.Copy()
		batch = append(batch, u)
		if a := s.allocs[u.ID]; a != nil {
			a.ClientStatus, a.ClientDescription, a.TaskStates = u.ClientStatus, u.ClientDescription, u.TaskStates
		}
	}
	s.updates = append(s.updates, batch)
	s.bump()
	return nil
}
