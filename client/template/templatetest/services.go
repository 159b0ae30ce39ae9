package templatetest

import (
	"context"
	"sort"
	"sync"

	"github.com/nomadish/nomadish/client/template"
)

// Services is an in-memory template.ServiceReader and ServiceLister: every
// Set raises the index and wakes blocked readers, as the servers' table
// index does. Safe for concurrent use.
type Services struct {
	mu      sync.Mutex
	index   uint64
	byName  map[string][]*template.Service
	changed chan struct{}
}

var (
	_ template.ServiceReader = (*Services)(nil)
	_ template.ServiceLister = (*Services)(nil)
)

// NewServices returns an empty store at index 1.
func NewServices() *Services {
	return &Services{index: 1, byName: map[string][]*template.Service{}, changed: make(chan struct{})}
}

// Set replaces the instances of service name (none: the service is gone).
func (s *Services) Set(name string, instances ...*template.Service) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index++
	if len(instances) == 0 {
		delete(s.byName, name)
	} else {
		s.byName[name] = instances
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Services) wait(ctx context.Context, waitIndex uint64) error {
	for {
		s.mu.Lock()
		if waitIndex == 0 || s.index > waitIndex {
			return nil
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Service implements template.ServiceReader.
func (s *Services) Service(ctx context.Context, name string, waitIndex uint64) ([]*template.Service, uint64, error) {
	if err := s.wait(ctx, waitIndex); err != nil {
		return nil, 0, err
	}
	defer s.mu.Unlock()
	out := append([]*template.Service(nil), s.byName[name]...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, s.index, nil
}

// Services implements template.ServiceLister.
func (s *Services) Services(ctx context.Context, waitIndex uint64) ([]*template.ServiceStub, uint64, error) {
	if err := s.wait(ctx, waitIndex); err != nil {
		return nil, 0, err
	}
	defer s.mu.Unlock()
	var out []*template.ServiceStub
	for name, insts := range s.byName {
		seen := map[string]bool{}
		stub := &template.ServiceStub{Name: name}
		for _, in := range insts {
			for _, t := range in.Tags {
				if !seen[t] {
					seen[t] = true
					stub.Tags = append(stub.Tags, t)
				}
			}
		}
		sort.Strings(stub.Tags)
		out = append(out, stub)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, s.index, nil
}
