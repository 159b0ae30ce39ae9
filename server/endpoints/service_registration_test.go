package endpoints

import (
	"fmt"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// svcFixture is ACL-enabled deps whose Apply writes service entries to the
// store as the FSM does, two registered nodes, a running allocation on
// each, a terminal one on n1, and tokens (management, read, submit).
type svcFixture struct {
	d                     *Deps
	e                     *ServiceRegistration
	n1, n2                *structs.Node
	a1, a2, dead          *structs.Allocation
	mgmt, reader, submitr string
}

func newSvcFixture(t *testing.T) *svcFixture {
	t.Helper()
	d, a := aclDeps(t)
	aclApply := d.Apply
	var index uint64 = 1000
	d.Apply = func(mt structs.MessageType, msg any) (uint64, any, error) {
		st := d.State()
		switch m := msg.(type) {
		case *structs.ServiceRegistrationUpsertRequest:
			index++
			if m.AuthToken != "" {
				t.Error("an upsert entry carries the node secret into raft")
			}
			return index, st.UpsertServiceRegistrations(index, m.Services), nil
		case *structs.ServiceRegistrationDelByIDRequest:
			index++
			if err := st.DeleteServiceRegistrationByID(index, m.Namespace, m.ID); err != nil {
				return index, err, nil
			}
			return index, nil, nil
		case *structs.ServiceRegistrationDelByAllocIDsRequest:
			index++
			return index, nil, st.DeleteServiceRegistrationsByAllocIDs(index, m.AllocIDs)
		}
		return aclApply(mt, msg)
	}
	f := &svcFixture{d: d, e: &ServiceRegistration{d: d}, n1: structstest.Node("n1"), n2: structstest.Node("n2")}
	st := d.State()
	for i, n := range []*structs.Node{f.n1, f.n2} {
		if err := st.UpsertNode(uint64(10+i), n); err != nil {
			t.Fatal(err)
		}
	}
	job := structstest.Job("web")
	mk := func(node, client string) *structs.Allocation {
		return &structs.Allocation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", Job: job, NodeID: node,
			TaskGroup: "web", EvalID: "e1", DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: client}
	}
	f.a1, f.a2, f.dead = mk("n1", "running"), mk("n2", "running"), mk("n1", "complete")
	if err := st.UpsertAllocs(20, []*structs.Allocation{f.a1, f.a2, f.dead}); err != nil {
		t.Fatal(err)
	}
	root := bootstrap(t, a)
	f.mgmt = root.SecretID
	mgmt := structs.WriteRequest{AuthToken: root.SecretID}
	if err := a.UpsertPolicies(&structs.ACLPolicyUpsertRequest{WriteRequest: mgmt, Policies: []*structs.ACLPolicy{
		{Name: "reader", Rules: `namespace "default" { policy = "read" }`},
		{Name: "submitter", Rules: `namespace "default" { capabilities = ["submit-job"] }`},
	}}, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	token := func(policy string) string {
		var tr structs.ACLTokenUpsertResponse
		if err := a.UpsertTokens(&structs.ACLTokenUpsertRequest{WriteRequest: mgmt, Tokens: []*structs.ACLToken{{Policies: []string{policy}}}}, &tr); err != nil {
			t.Fatal(err)
		}
		return tr.Tokens[0].SecretID
	}
	f.reader, f.submitr = token("reader"), token("submitter")
	return f
}

func svcReg(a *structs.Allocation, name string, port int) *structs.ServiceRegistration {
	return &structs.ServiceRegistration{ID: fmt.Sprintf("_nomad-task-%s-web-%s-%d", a.ID, name, port), ServiceName: name,
		Namespace: a.Namespace, NodeID: a.NodeID, Datacenter: "dc1", JobID: a.JobID, AllocID: a.ID,
		Tags: []string{"v1"}, Address: "10.0.0.1", Port: port}
}

func (f *svcFixture) upsert(secret string, regs ...*structs.ServiceRegistration) error {
	return f.e.Upsert(&structs.ServiceRegistrationUpsertRequest{Services: regs, WriteRequest: structs.WriteRequest{AuthToken: secret}},
		&structs.ServiceRegistrationUpsertResponse{})
}

func (f *svcFixture) get(t *testing.T, token, name, choose string) []*structs.ServiceRegistration {
	t.Helper()
	var r structs.ServiceRegistrationByNameResponse
	if err := f.e.GetService(&structs.ServiceRegistrationByNameRequest{ServiceName: name, Choose: choose,
		QueryOptions: structs.QueryOptions{AuthToken: token}}, &r); err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	return r.Services
}

// TestServiceRegistrationUpsertAuth: only the node's secret, only for its
// own live allocations, only well-formed registrations; a refusal writes
// nothing.
func TestServiceRegistrationUpsertAuth(t *testing.T) {
	f := newSvcFixture(t)
	wantCode(t, f.upsert("", svcReg(f.a1, "web", 80)), 403, "node secret")
	wantCode(t, f.upsert(f.mgmt, svcReg(f.a1, "web", 80)), 403, "node secret")
	wantCode(t, f.upsert(f.n2.SecretID, svcReg(f.a1, "web", 80)), 403, "another node")
	lying := svcReg(f.a1, "web", 80)
	lying.NodeID = "n2"
	wantCode(t, f.upsert(f.n2.SecretID, lying), 403, "another node")
	wantCode(t, f.upsert(f.n1.SecretID, svcReg(f.dead, "web", 80)), 400, "terminal")
	other := svcReg(f.a1, "web", 80)
	other.JobID = "db"
	wantCode(t, f.upsert(f.n1.SecretID, other), 400, "is of job")
	wantCode(t, f.upsert(f.n1.SecretID, svcReg(f.a1, "bad_name", 80)), 400, "service name")
	wantCode(t, f.upsert(f.n1.SecretID), 400, "at least one")
	// One bad registration in a batch refuses the batch.
	wantCode(t, f.upsert(f.n1.SecretID, svcReg(f.a1, "web", 80), svcReg(f.dead, "web", 81)), 400, "terminal")
	if regs, _ := f.d.State().ServiceRegistrations(nil, "*"); len(regs) != 0 {
		t.Fatalf("refused upserts wrote %d registrations", len(regs))
	}
	if err := f.upsert(f.n1.SecretID, svcReg(f.a1, "web", 80), svcReg(f.a1, "admin", 81)); err != nil {
		t.Fatal(err)
	}
	if err := f.upsert(f.n2.SecretID, svcReg(f.a2, "web", 80)); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, f.reader, "web", ""); len(got) != 2 || got[0].CreateIndex == 0 {
		t.Fatalf("web: %+v", got)
	}
}

// TestServiceRegistrationDeletes: DeleteByID with the registration's node
// secret or submit-job (not read); DeleteByAllocIDs with the node secret
// of those allocations only.
func TestServiceRegistrationDeletes(t *testing.T) {
	f := newSvcFixture(t)
	r1, r2, r3 := svcReg(f.a1, "web", 80), svcReg(f.a1, "admin", 81), svcReg(f.a2, "web", 80)
	if err := f.upsert(f.n1.SecretID, r1, r2); err != nil {
		t.Fatal(err)
	}
	if err := f.upsert(f.n2.SecretID, r3); err != nil {
		t.Fatal(err)
	}
	del := func(secret, ns, id string) error {
		return f.e.DeleteByID(&structs.ServiceRegistrationDelByIDRequest{ID: id,
			WriteRequest: structs.WriteRequest{AuthToken: secret, Namespace: ns}}, &structs.ServiceRegistrationDelResponse{})
	}
	wantCode(t, del(f.reader, "", r1.ID), 403, "Permission denied")
	wantCode(t, del(f.n2.SecretID, "", r1.ID), 403, "another node")
	wantCode(t, del(f.submitr, "", "nope"), 404, "not found")
	wantCode(t, del(f.mgmt, "other", r1.ID), 404, "not found")
	if err := del(f.submitr, "", r1.ID); err != nil {
		t.Fatalf("submit-job delete: %v", err)
	}
	if err := del(f.n1.SecretID, "default", r2.ID); err != nil {
		t.Fatalf("node delete: %v", err)
	}
	byAlloc := func(secret string, ids ...string) error {
		return f.e.DeleteByAllocIDs(&structs.ServiceRegistrationDelByAllocIDsRequest{AllocIDs: ids,
			WriteRequest: structs.WriteRequest{AuthToken: secret}}, &structs.ServiceRegistrationDelResponse{})
	}
	wantCode(t, byAlloc(f.mgmt, f.a2.ID), 403, "node secret")
	wantCode(t, byAlloc(f.n1.SecretID, f.a2.ID), 403, "another node")
	if len(f.get(t, f.mgmt, "web", "")) != 1 {
		t.Fatal("a refused delete deleted")
	}
	if err := byAlloc(f.n2.SecretID, f.a2.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, f.mgmt, "web", ""); len(got) != 0 {
		t.Fatalf("after deletes: %+v", got)
	}
}

// TestServiceRegistrationReads: List groups names and tags per namespace
// and filters by the token; GetService needs read-job or a node secret,
// chooses stably, and blocks until the table changes.
func TestServiceRegistrationReads(t *testing.T) {
	f := newSvcFixture(t)
	var regs []*structs.ServiceRegistration
	for port := 80; port < 86; port++ {
		r := svcReg(f.a1, "web", port)
		r.Tags = []string{fmt.Sprintf("t%d", port%2)}
		regs = append(regs, r)
	}
	if err := f.upsert(f.n1.SecretID, append(regs, svcReg(f.a1, "admin", 90))...); err != nil {
		t.Fatal(err)
	}
	list := func(token, ns string) ([]*structs.ServiceRegistrationListStub, error) {
		var r structs.ServiceRegistrationListResponse
		err := f.e.List(&structs.ServiceRegistrationListRequest{QueryOptions: structs.QueryOptions{AuthToken: token, Namespace: ns}}, &r)
		return r.Services, err
	}
	got, err := list(f.reader, "")
	if err != nil || len(got) != 1 || len(got[0].Services) != 2 || got[0].Services[0].ServiceName != "admin" ||
		fmt.Sprint(got[0].Services[1].Tags) != "[t0 t1]" {
		t.Fatalf("list: %+v %v", got, err)
	}
	if _, err := list(f.reader, "other"); err == nil {
		t.Fatal("reader listed a namespace it has no rule for")
	}
	if got, err := list(f.reader, "*"); err != nil || len(got) != 1 {
		t.Fatalf("list *: %+v %v", got, err)
	}
	if _, err := list("", ""); err == nil {
		t.Fatal("anonymous list allowed with ACLs on")
	}

	var r structs.ServiceRegistrationByNameResponse
	wantCode(t, f.e.GetService(&structs.ServiceRegistrationByNameRequest{ServiceName: "web"}, &r), 403, "Permission denied")
	wantCode(t, f.e.GetService(&structs.ServiceRegistrationByNameRequest{ServiceName: "web", Choose: "x|y",
		QueryOptions: structs.QueryOptions{AuthToken: f.mgmt}}, &r), 400, "choose")
	if got := f.get(t, f.n2.SecretID, "web", ""); len(got) != 6 {
		t.Fatalf("node-secret read: %d", len(got))
	}
	two := f.get(t, f.reader, "web", "2|alpha")
	if len(two) != 2 {
		t.Fatalf("choose 2: %d", len(two))
	}
	again := f.get(t, f.reader, "web", "2|alpha")
	if two[0].ID != again[0].ID || two[1].ID != again[1].ID {
		t.Fatal("choose is not stable for one key")
	}
	// Removing an instance not chosen leaves the choice alone.
	for _, r := range regs {
		if r.ID != two[0].ID && r.ID != two[1].ID {
			if err := f.e.DeleteByID(&structs.ServiceRegistrationDelByIDRequest{ID: r.ID, WriteRequest: structs.WriteRequest{AuthToken: f.mgmt}},
				&structs.ServiceRegistrationDelResponse{}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if after := f.get(t, f.reader, "web", "2|alpha"); after[0].ID != two[0].ID || after[1].ID != two[1].ID {
		t.Fatal("removing an unchosen instance moved the choice")
	}

	// Blocking: a query at the current index returns once a write lands.
	cur := f.get(t, f.reader, "web", "")
	idx, _ := f.d.State().Index("service_registrations")
	done := make(chan *structs.ServiceRegistrationByNameResponse)
	go func() {
		var r structs.ServiceRegistrationByNameResponse
		err := f.e.GetService(&structs.ServiceRegistrationByNameRequest{ServiceName: "web",
			QueryOptions: structs.QueryOptions{AuthToken: f.reader, MinQueryIndex: idx, MaxQueryTime: time.Minute}}, &r)
		if err != nil {
			t.Error(err)
		}
		done <- &r
	}()
	if err := f.upsert(f.n1.SecretID, svcReg(f.a1, "web", 99)); err != nil {
		t.Fatal(err)
	}
	r2 := <-done
	if len(r2.Services) != len(cur)+1 || r2.Index <= idx {
		t.Fatalf("blocking read: %d services at %d (had %d at %d)", len(r2.Services), r2.Index, len(cur), idx)
	}
}
