package state

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

func testReg(id, ns, name, node, alloc, job string) *structs.ServiceRegistration {
	return &structs.ServiceRegistration{ID: id, ServiceName: name, Namespace: ns, NodeID: node, AllocID: alloc, JobID: job,
		Datacenter: "dc1", Address: "10.0.0.1", Port: 80}
}

func regIDs(rs []*structs.ServiceRegistration) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// TestServiceRegistrationsUpsertReadDelete: rows are found by every index;
// an unchanged re-upsert bumps no index; deletes by ID (its namespace
// only) and by alloc.
func TestServiceRegistrationsUpsertReadDelete(t *testing.T) {
	s := testStore(t)
	regs := []*structs.ServiceRegistration{
		testReg("r1", "default", "web", "n1", "a1", "j1"),
		testReg("r2", "default", "web", "n2", "a2", "j1"),
		testReg("r3", "default", "db", "n1", "a1", "j1"),
		testReg("r4", "team", "web", "n1", "a3", "j2"),
	}
	if err := s.UpsertServiceRegistrations(10, regs); err != nil {
		t.Fatal(err)
	}
	check := func(what string, got []*structs.ServiceRegistration, err error, want ...string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if g := regIDs(got); len(g) != len(want) || (len(want) > 0 && g[0] != want[0]) {
			t.Fatalf("%s: got %v want %v", what, g, want)
		}
	}
	got, err := s.ServiceRegistrationsByName(nil, "default", "web")
	check("by name", got, err, "r1", "r2")
	got, err = s.ServiceRegistrations(nil, "default")
	check("namespace", got, err, "r3", "r1", "r2") // by service name, then ID
	got, err = s.ServiceRegistrations(nil, "*")
	check("all", got, err, "r1", "r2", "r3", "r4")
	got, err = s.ServiceRegistrationsByNodeID(nil, "n1")
	check("by node", got, err, "r1", "r3", "r4")
	got, err = s.ServiceRegistrationsByAllocID(nil, "a1")
	check("by alloc", got, err, "r1", "r3")
	got, err = s.ServiceRegistrationsByJobID(nil, "team", "j2")
	check("by job", got, err, "r4")

	// Re-upserting the same registration changes nothing, not the index.
	if err := s.UpsertServiceRegistrations(11, []*structs.ServiceRegistration{testReg("r1", "default", "web", "n1", "a1", "j1")}); err != nil {
		t.Fatal(err)
	}
	if idx, _ := s.Index(TableServiceRegistrations); idx != 10 {
		t.Fatalf("unchanged upsert moved the index to %d", idx)
	}
	moved := testReg("r1", "default", "web", "n1", "a1", "j1")
	moved.Port = 81
	if err := s.UpsertServiceRegistrations(12, []*structs.ServiceRegistration{moved}); err != nil {
		t.Fatal(err)
	}
	r, _ := s.ServiceRegistrationByID(nil, "r1")
	if r.Port != 81 || r.CreateIndex != 10 || r.ModifyIndex != 12 {
		t.Fatalf("updated row: %+v", r)
	}

	err = s.DeleteServiceRegistrationByID(13, "team", "r1")
	if code, _ := structs.ErrorCode(err); err == nil || code != 404 {
		t.Fatalf("delete in another namespace: %v", err)
	}
	if err := s.DeleteServiceRegistrationByID(13, "default", "r1"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteServiceRegistrationsByAllocIDs(14, []string{"a1", "a-none"}); err != nil {
		t.Fatal(err)
	}
	got, err = s.ServiceRegistrations(nil, "*")
	check("after deletes", got, err, "r2", "r4")
	if idx, _ := s.Index(TableServiceRegistrations); idx != 14 {
		t.Fatalf("index after deletes: %d", idx)
	}
}

// TestServiceRegistrationsGoWithNodeAndAlloc: a node marked down loses its
// registrations and an allocation its client reports terminal loses its
// own, in the same write (same index).
func TestServiceRegistrationsGoWithNodeAndAlloc(t *testing.T) {
	s := testStore(t)
	for i, n := range []string{"n1", "n2"} {
		if err := s.UpsertNode(uint64(1+i), structstest.Node(n)); err != nil {
			t.Fatal(err)
		}
	}
	job := structstest.Job("web")
	a1 := &structs.Allocation{ID: "a1", Namespace: "default", JobID: "web", Job: job, NodeID: "n2", TaskGroup: "web", EvalID: "e1",
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning}
	if err := s.UpsertAllocs(3, []*structs.Allocation{a1}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertServiceRegistrations(4, []*structs.ServiceRegistration{
		testReg("r1", "default", "web", "n1", "a0", "web"), testReg("r2", "default", "web", "n2", "a1", "web")}); err != nil {
		t.Fatal(err)
	}
	// A running report keeps them.
	if err := s.UpdateAllocsFromClient(5, []*structs.Allocation{{ID: "a1", ClientStatus: structs.AllocClientStatusRunning}}, nil); err != nil {
		t.Fatal(err)
	}
	if rs, _ := s.ServiceRegistrations(nil, "*"); len(rs) != 2 {
		t.Fatalf("running report removed services: %v", regIDs(rs))
	}
	if err := s.UpdateNodeStatus(6, "n1", structs.NodeStatusDown, 0); err != nil {
		t.Fatal(err)
	}
	if rs, _ := s.ServiceRegistrations(nil, "*"); len(rs) != 1 || rs[0].ID != "r2" {
		t.Fatalf("after n1 down: %v", regIDs(rs))
	}
	if idx, _ := s.Index(TableServiceRegistrations); idx != 6 {
		t.Fatalf("services index after node down: %d", idx)
	}
	if err := s.UpdateAllocsFromClient(7, []*structs.Allocation{{ID: "a1", ClientStatus: structs.AllocClientStatusComplete}}, nil); err != nil {
		t.Fatal(err)
	}
	if rs, _ := s.ServiceRegistrations(nil, "*"); len(rs) != 0 {
		t.Fatalf("after a1 complete: %v", regIDs(rs))
	}
	if idx, _ := s.Index(TableServiceRegistrations); idx != 7 {
		t.Fatalf("services index after alloc terminal: %d", idx)
	}
}
