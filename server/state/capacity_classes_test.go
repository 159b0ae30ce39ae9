package state

import (
	"slices"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// classRecorder is a ClassNotifier.
type classRecorder struct {
	recorder
	on map[uint64][]string
}

func (r *classRecorder) CapacityChangedOn(index uint64, classes []string) {
	if r.on == nil {
		r.on = map[uint64][]string{}
	}
	r.on[index] = classes
}

func classNode(id, class string) *structs.Node {
	return &structs.Node{ID: id, SecretID: "s-" + id, Name: id, Datacenter: "dc1",
		Status: structs.NodeStatusReady, ComputedClass: class}
}

func TestCapacityChangesNameTheNodesClasses(t *testing.T) {
	s := testStore(t)
	rec := &classRecorder{}
	s.SetNotifier(rec)
	if err := s.UpsertNode(5, classNode("n1", "v1:a")); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertNode(6, classNode("n2", "v1:b")); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.on[5], []string{"v1:a"}) || !slices.Equal(rec.on[6], []string{"v1:b"}) {
		t.Fatalf("node registrations: %v", rec.on)
	}
	job := testJob("web")
	a1, a2 := testAlloc(job, "n1", "e1"), testAlloc(job, "n2", "e1")
	if err := s.UpsertJob(7, job, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertAllocs(8, []*structs.Allocation{a1, a2}); err != nil {
		t.Fatal(err)
	}
	done := func(a *structs.Allocation) *structs.Allocation {
		return &structs.Allocation{ID: a.ID, ClientStatus: structs.AllocClientStatusComplete}
	}
	if err := s.UpdateAllocsFromClient(9, []*structs.Allocation{done(a1), done(a2)}, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.on[9], []string{"v1:a", "v1:b"}) {
		t.Fatalf("allocs completing on n1 and n2: %v", rec.on[9])
	}
	if len(rec.capacity) != 0 {
		t.Fatalf("CapacityChanged called at %v for class-known changes", rec.capacity)
	}

	// A node without a computed class wakes every class.
	if err := s.UpsertNode(10, classNode("n3", "")); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.capacity, []uint64{10}) || rec.on[10] != nil {
		t.Fatalf("classless node: capacity %v, on %v", rec.capacity, rec.on[10])
	}
}

func TestCapacityChangedWithoutClassNotifier(t *testing.T) {
	s := testStore(t)
	rec := &recorder{}
	s.SetNotifier(rec)
	if err := s.UpsertNode(5, classNode("n1", "v1:a")); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.capacity, []uint64{5}) {
		t.Fatalf("capacity %v", rec.capacity)
	}
}
