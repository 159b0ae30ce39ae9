package clienttest

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// fakeServices holds the service registrations clients made, by ID;
// guarded by FakeServer.mu.
type fakeServices struct {
	regs map[string]*structs.ServiceRegistration
	// calls counts the registration RPCs by method.
	calls map[string]int
}

// serviceRPC serves ServiceRegistration.Upsert, DeleteByID and
// DeleteByAllocIDs as the servers do (without their node checks).
func (s *FakeServer) serviceRPC(method string, args any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.services.regs == nil {
		s.services.regs, s.services.calls = map[string]*structs.ServiceRegistration{}, map[string]int{}
	}
	s.services.calls[method]++
	switch req := args.(type) {
	case *structs.ServiceRegistrationUpsertRequest:
		for _, r := range req.Services {
			c := *r
			s.services.regs[r.ID] = &c
		}
	case *structs.ServiceRegistrationDelByIDRequest:
		delete(s.services.regs, req.ID)
	case *structs.ServiceRegistrationDelByAllocIDsRequest:
		for id, r := range s.services.regs {
			for _, a := range req.AllocIDs {
				if r.AllocID == a {
					delete(s.services.regs, id)
				}
			}
		}
	default:
		return fmt.Errorf("fake server: %s: unexpected args %T", method, args)
	}
	s.bump()
	return nil
}

// Services returns copies of the registrations clients made, by ID.
func (s *FakeServer) Services() map[string]*structs.ServiceRegistration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]*structs.ServiceRegistration, len(s.services.regs))
	for id, r := range s.services.regs {
		c := *r
		out[id] = &c
	}
	return out
}

// ServiceCalls returns how many times method was called.
func (s *FakeServer) ServiceCalls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.services.calls[method]
}
