package services

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// fakeRegistrar records what the hook stores; failFirst makes the first
// upsert fail (the hook retries).
type fakeRegistrar struct {
	mu        sync.Mutex
	regs      map[string]*structs.ServiceRegistration
	deleted   []string
	failFirst bool
	upserts   int
	changed   chan struct{}
}

var _ Registrar = (*fakeRegistrar)(nil)

func newFakeRegistrar() *fakeRegistrar {
	return &fakeRegistrar{regs: map[string]*structs.ServiceRegistration{}, changed: make(chan struct{}, 100)}
}

func (f *fakeRegistrar) note() { f.changed <- struct{}{} }

func (f *fakeRegistrar) Upsert(regs []*structs.ServiceRegistration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.note()
	f.upserts++
	if f.failFirst && f.upserts == 1 {
		return errors.New("no leader")
	}
	for _, r := range regs {
		f.regs[r.ID] = r
	}
	return nil
}

func (f *fakeRegistrar) DeleteByID(ns, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.note()
	delete(f.regs, id)
	return nil
}

func (f *fakeRegistrar) DeleteByAllocIDs(ids []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.note()
	f.deleted = append(f.deleted, ids...)
	for id, r := range f.regs {
		if r.AllocID == ids[0] {
			delete(f.regs, id)
		}
	}
	return nil
}

// waitRegs waits until cond holds on the registrations (each RPC wakes it).
func (f *fakeRegistrar) wait(t *testing.T, what string, cond func(map[string]*structs.ServiceRegistration) bool) {
	t.Helper()
	for {
		f.mu.Lock()
		ok := cond(f.regs)
		f.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-f.changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func hookAlloc() *structs.Allocation {
	a := testAlloc()
	a.Job = &structs.Job{ID: "j", TaskGroups: []*structs.TaskGroup{{Name: "g",
		Services: []*structs.Service{{Name: "web", PortLabel: "http", Tags: []string{"live"}, CanaryTags: []string{"canary"}}},
		Tasks:    []*structs.Task{{Name: "t", Services: []*structs.Service{{Name: "api", PortLabel: "raw"}}}}}}}
	a.DeploymentStatus = &structs.AllocDeploymentStatus{Canary: true}
	return a
}

func TestHookRegistersWhatRunsAndFollowsPromotion(t *testing.T) {
	reg := newFakeRegistrar()
	reg.failFirst = true
	a := hookAlloc()
	if !HasServices(a) {
		t.Fatal("HasServices")
	}
	h := New(Config{Alloc: a, Registrar: reg})
	started := time.Unix(100, 0)
	h.Sync(a, map[string]time.Time{"t": started}, true)
	groupID, taskID := "_nomad-task-a1-group-g-web-http", "_nomad-task-a1-t-api-raw"
	reg.wait(t, "both services, after a retry", func(m map[string]*structs.ServiceRegistration) bool {
		return m[groupID] != nil && m[taskID] != nil && m[groupID].Tags[0] == "canary"
	})

	promoted := hookAlloc()
	promoted.DeploymentStatus.Canary = false
	h.Sync(promoted, map[string]time.Time{"t": started}, true)
	reg.wait(t, "normal tags after promotion", func(m map[string]*structs.ServiceRegistration) bool {
		return m[groupID] != nil && m[groupID].Tags[0] == "live"
	})

	// The task stops: its service and the group's go.
	h.Sync(promoted, nil, false)
	reg.wait(t, "deregistered", func(m map[string]*structs.ServiceRegistration) bool { return len(m) == 0 })

	h.Stop(true)
	if len(reg.deleted) != 1 || reg.deleted[0] != "a1" {
		t.Fatalf("DeleteByAllocIDs %v", reg.deleted)
	}
}

func TestHookStopWithoutDeregister(t *testing.T) {
	reg := newFakeRegistrar()
	a := hookAlloc()
	h := New(Config{Alloc: a, Registrar: reg})
	h.Sync(a, map[string]time.Time{"t": time.Unix(100, 0)}, true)
	reg.wait(t, "registered", func(m map[string]*structs.ServiceRegistration) bool { return len(m) == 2 })
	h.Stop(false) // the client shuts down: the tasks keep running
	if len(reg.deleted) != 0 || len(reg.regs) != 2 {
		t.Fatalf("a client shutdown deregistered: %v %v", reg.deleted, reg.regs)
	}
}
