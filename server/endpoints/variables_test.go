package endpoints

import (
	"bytes"
	"testing"
	"time"

	"github.com/nomadish/nomadish/server/keyring"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// varDeps is testDeps with a keyring, an active root key and an Apply
// that writes the state store as the FSM would.
func varDeps(t *testing.T) (*Deps, *Variables) {
	t.Helper()
	d := testDeps(t)
	kr, err := keyring.New("")
	if err != nil {
		t.Fatal(err)
	}
	d.Keyring = kr
	var index uint64 = 100
	d.Apply = func(mt structs.MessageType, msg any) (uint64, any, error) {
		index++
		switch m := msg.(type) {
		case *structs.VarApplyStateRequest:
			return index, d.State().VarApply(index, m), nil
		case *structs.RootKeyMetaUpsertRequest:
			return index, d.State().UpsertRootKeyMeta(index, m.RootKeyMeta), nil
		}
		t.Fatalf("unexpected apply %d %T", mt, msg)
		return 0, nil, nil
	}
	if _, err := d.NewRootKey(); err != nil {
		t.Fatal(err)
	}
	return d, &Variables{d: d}
}

func putVar(t *testing.T, e *Variables, op structs.VarOp, path string, cas uint64, items structs.VariableItems) *structs.VariablesApplyResponse {
	t.Helper()
	var r structs.VariablesApplyResponse
	v := &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Path: path, ModifyIndex: cas}, Items: items}
	if err := e.Apply(&structs.VariablesApplyRequest{Op: op, Var: v}, &r); err != nil {
		t.Fatalf("%s %s: %v", op, path, err)
	}
	return &r
}

func TestVariablesCASAndValidation(t *testing.T) {
	d, e := varDeps(t)
	r := putVar(t, e, structs.VarOpCAS, "a/b", 0, structs.VariableItems{"k": "v1"})
	if r.Result != structs.VarOpResultOk || r.Output.Items["k"] != "v1" {
		t.Fatalf("cas create: %+v", r)
	}
	idx := r.Output.ModifyIndex
	if r := putVar(t, e, structs.VarOpCAS, "a/b", 0, structs.VariableItems{"k": "x"}); !r.IsConflict() || r.Conflict.Items["k"] != "v1" {
		t.Fatalf("cas=0 on an existing variable: %+v", r)
	}
	if r := putVar(t, e, structs.VarOpCAS, "a/b", idx+7, structs.VariableItems{"k": "x"}); !r.IsConflict() || r.Conflict.ModifyIndex != idx {
		t.Fatalf("stale cas: %+v", r)
	}
	if r := putVar(t, e, structs.VarOpCAS, "a/b", idx, structs.VariableItems{"k": "v2"}); r.Result != structs.VarOpResultOk || r.Output.CreateIndex != idx {
		t.Fatalf("cas with the current index: %+v", r)
	}
	if r := putVar(t, e, structs.VarOpDeleteCAS, "a/b", idx, nil); !r.IsConflict() {
		t.Fatalf("stale delete-cas: %+v", r)
	}
	for _, p := range []string{"", "/a", "a/", "a//b", "nomad", "nomad/other", "sp ace"} {
		var r structs.VariablesApplyResponse
		err := e.Apply(&structs.VariablesApplyRequest{Op: structs.VarOpSet, Var: &structs.VariableDecrypted{
			VariableMetadata: structs.VariableMetadata{Path: p}, Items: structs.VariableItems{"k": "v"}}}, &r)
		wantCode(t, err, 400, "")
	}
	// The store holds ciphertext only.
	var buf bytes.Buffer
	if err := d.State().Snapshot().Persist(&buf); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("v2")) || bytes.Contains(buf.Bytes(), []byte(`"k"`)) {
		t.Fatal("the persisted state holds a variable's plaintext")
	}
}

// TestVariablesWorkloadAccess: a task reads its own job's paths with its
// node's secret; another job's path, another node's secret, a task not in
// the allocation and a terminal allocation are refused.
func TestVariablesWorkloadAccess(t *testing.T) {
	d, e := varDeps(t)
	st := d.State()
	n1, n2 := structstest.Node("n1"), structstest.Node("n2")
	for i, n := range []*structs.Node{n1, n2} {
		if err := st.UpsertNode(uint64(10+i), n); err != nil {
			t.Fatal(err)
		}
	}
	job := structstest.Job("web")
	job.Namespace = "default"
	alloc := &structs.Allocation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", Job: job, NodeID: "n1",
		TaskGroup: "web", EvalID: "e1", DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning}
	if err := st.UpsertAllocs(20, []*structs.Allocation{alloc}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"nomad/jobs", "nomad/jobs/web", "nomad/jobs/web/web/t", "nomad/jobs/other", "nomad/jobs/webx", "nomad/jobs/web/web/t/deeper", "nomad/jobs/web/other"} {
		putVar(t, e, structs.VarOpSet, p, 0, structs.VariableItems{"who": p})
	}
	req := func(secret, task, path string) *structs.VariablesWorkloadRequest {
		return &structs.VariablesWorkloadRequest{AllocID: alloc.ID, Task: task, Path: path, QueryOptions: structs.QueryOptions{AuthToken: secret}}
	}
	var r structs.VariablesWorkloadResponse
	if err := e.WorkloadRead(req(n1.SecretID, "t", "nomad/jobs/web/web/t"), &r); err != nil || r.Data.Items["who"] != "nomad/jobs/web/web/t" {
		t.Fatalf("own task path: %+v %v", r.Data, err)
	}
	if err := e.WorkloadRead(req(n1.SecretID, "t", "nomad/jobs/web/web"), &r); err != nil || r.Data != nil {
		t.Fatalf("own absent path: %+v %v", r.Data, err)
	}
	wantCode(t, e.WorkloadRead(req(n1.SecretID, "t", "nomad/jobs/other"), &r), 403, "Permission denied")
	wantCode(t, e.WorkloadRead(req(n1.SecretID, "t", "nomad/jobs/webx"), &r), 403, "Permission denied")
	wantCode(t, e.WorkloadRead(req(n1.SecretID, "t", "nomad/jobs/web/web/t/deeper"), &r), 403, "Permission denied")
	wantCode(t, e.WorkloadRead(req(n1.SecretID, "t", "nomad/jobs/web/other"), &r), 403, "Permission denied")
	wantCode(t, e.WorkloadRead(req(n2.SecretID, "t", "nomad/jobs/web"), &r), 403, "Permission denied")
	wantCode(t, e.WorkloadRead(req(n1.SecretID, "nope", "nomad/jobs/web"), &r), 403, "Permission denied")
	lr := structs.VariablesWorkloadResponse{}
	lreq := req(n1.SecretID, "t", "")
	lreq.Prefix = "nomad/jobs"
	if err := e.WorkloadList(lreq, &lr); err != nil || len(lr.List) != 3 || lr.List[0].Path != "nomad/jobs" ||
		lr.List[1].Path != "nomad/jobs/web" || lr.List[2].Path != "nomad/jobs/web/web/t" {
		t.Fatalf("workload list: %+v %v", lr.List, err)
	}
	stopped := alloc.Copy()
	stopped.ClientStatus = structs.AllocClientStatusComplete
	stopped.DesiredStatus = structs.AllocDesiredStatusStop
	if err := st.UpsertAllocs(30, []*structs.Allocation{stopped}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.WorkloadRead(req(n1.SecretID, "t", "nomad/jobs/web"), &r), 403, "Permission denied")
}

// TestVariablesLocks: only the holder writes a locked variable; after the
// TTL and the lock delay another holder may take it.
func TestVariablesLocks(t *testing.T) {
	d, e := varDeps(t)
	clk := d.Clock.(interface{ Advance(d time.Duration) })
	var r structs.VariablesApplyResponse
	acq := func() (*structs.VariablesApplyResponse, error) {
		r = structs.VariablesApplyResponse{}
		err := e.Apply(&structs.VariablesApplyRequest{Op: structs.VarOpLockAcquire, Var: &structs.VariableDecrypted{
			VariableMetadata: structs.VariableMetadata{Path: "l", Lock: &structs.VariableLock{TTL: 10 * time.Second, LockDelay: 5 * time.Second}}}}, &r)
		return &r, err
	}
	first, err := acq()
	if err != nil || first.Result != structs.VarOpResultOk || first.Output.Lock.ID == "" {
		t.Fatalf("acquire: %+v %v", first, err)
	}
	id := first.Output.Lock.ID
	if second, _ := acq(); !second.IsConflict() || second.Conflict.Lock.ID != "" {
		t.Fatalf("second acquire: %+v", second)
	}
	if w := putVar(t, e, structs.VarOpSet, "l", 0, structs.VariableItems{"k": "v"}); !w.IsConflict() {
		t.Fatalf("write without the lock: %+v", w)
	}
	clk.Advance(12 * time.Second) // TTL ran out, lock delay not yet
	if again, _ := acq(); !again.IsConflict() {
		t.Fatalf("acquire within the lock delay: %+v", again)
	}
	clk.Advance(4 * time.Second)
	if again, err := acq(); err != nil || again.Result != structs.VarOpResultOk || again.Output.Lock.ID == id {
		t.Fatalf("acquire after TTL and delay: %+v %v", again, err)
	}
}

// TestKeyringRotate: a rotation makes a new active key and leaves old
// ciphertext readable; -full re-encrypts every variable with the new key.
func TestKeyringRotate(t *testing.T) {
	d, e := varDeps(t)
	kr := &Keyring{d: d}
	putVar(t, e, structs.VarOpSet, "a", 0, structs.VariableItems{"k": "1"})
	putVar(t, e, structs.VarOpSet, "b", 0, structs.VariableItems{"k": "2"})
	keyOf := func(p string) string {
		v, _ := d.State().Snapshot().VarGet(nil, "default", p)
		return v.KeyID
	}
	old := keyOf("a")
	var r structs.KeyringRotateResponse
	if err := kr.Rotate(&structs.KeyringRotateRequest{}, &r); err != nil || r.Key.KeyID == old || !r.Key.IsActive() {
		t.Fatalf("rotate: %+v %v", r.Key, err)
	}
	if keyOf("a") != old {
		t.Fatal("a plain rotate re-encrypted")
	}
	var rr structs.VariablesReadResponse
	if err := e.Read(&structs.VariablesReadRequest{Path: "a"}, &rr); err != nil || rr.Data.Items["k"] != "1" {
		t.Fatalf("read with the old key: %+v %v", rr.Data, err)
	}
	if w := putVar(t, e, structs.VarOpSet, "c", 0, structs.VariableItems{"k": "3"}); keyOf("c") != r.Key.KeyID || w.Output.Items["k"] != "3" {
		t.Fatalf("a new write does not use the new key: %s", keyOf("c"))
	}
	var full structs.KeyringRotateResponse
	if err := kr.Rotate(&structs.KeyringRotateRequest{Full: true}, &full); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a", "b", "c"} {
		if keyOf(p) != full.Key.KeyID {
			t.Fatalf("%s still under key %s after -full", p, keyOf(p))
		}
	}
	var lr structs.KeyringListResponse
	if err := kr.List(&structs.KeyringListRequest{}, &lr); err != nil || len(lr.Keys) != 3 || lr.Keys[0].KeyID != full.Key.KeyID {
		t.Fatalf("list: %+v %v", lr.Keys, err)
	}
	if err := e.Read(&structs.VariablesReadRequest{Path: "b"}, &rr); err != nil || rr.Data.Items["k"] != "2" {
		t.Fatalf("read after -full: %+v %v", rr.Data, err)
	}
}
