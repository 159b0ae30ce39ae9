// Package templatetest holds fakes for client/template: an in-memory
// variable store with blocking reads.
package templatetest

import (
	"context"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/nomadish/nomadish/client/template"
)

// Vars is an in-memory template.VarReader. Every Put or Delete raises the
// store's index and wakes blocked readers. Safe for concurrent use; make
// it inside a synctest bubble when the test uses one.
type Vars struct {
	mu      sync.Mutex
	index   uint64
	vars    map[string]*template.Var
	changed chan struct{} // closed and replaced on every write
	reads   int
}

var _ template.VarReader = (*Vars)(nil)

// NewVars returns an empty store at index 1.
func NewVars() *Vars {
	return &Vars{index: 1, vars: map[string]*template.Var{}, changed: make(chan struct{})}
}

// Put sets the variable at path to items.
func (s *Vars) Put(path string, items map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index++
	s.vars[path] = &template.Var{Path: path, Namespace: "default", Items: maps.Clone(items), ModifyIndex: s.index}
	close(s.changed)
	s.changed = make(chan struct{})
}

// Delete removes the variable at path.
func (s *Vars) Delete(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index++
	delete(s.vars, path)
	close(s.changed)
	s.changed = make(chan struct{})
}

// Reads returns how many reads were answered.
func (s *Vars) Reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// wait blocks until the index is above waitIndex; it returns with mu held.
func (s *Vars) wait(ctx context.Context, waitIndex uint64) error {
	for {
		s.mu.Lock()
		if waitIndex == 0 || s.index > waitIndex {
			s.reads++
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

// Var implements template.VarReader.
func (s *Vars) Var(ctx context.Context, path string, waitIndex uint64) (*template.Var, uint64, error) {
	if err := s.wait(ctx, waitIndex); err != nil {
		return nil, 0, err
	}
	defer s.mu.Unlock()
	v := s.vars[path]
	if v != nil {
		c := *v
		c.Items = maps.Clone(v.Items)
		v = &c
	}
	return v, s.index, nil
}

// List implements template.VarReader.
func (s *Vars) List(ctx context.Context, prefix string, waitIndex uint64) ([]*template.Var, uint64, error) {
	if err := s.wait(ctx, waitIndex); err != nil {
		return nil, 0, err
	}
	defer s.mu.Unlock()
	var out []*template.Var
	for p, v := range s.vars {
		if strings.HasPrefix(p, prefix) {
			c := *v
			out = append(out, &c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, s.index, nil
}
