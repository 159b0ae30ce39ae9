package state

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func encVar(path string, data string, lockID string) *structs.VariableEncrypted {
	v := &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: "default", Path: path},
		VariableData: structs.VariableData{Data: []byte(data), KeyID: "k1"}}
	if lockID != "" {
		v.Lock = &structs.VariableLock{ID: lockID, TTL: 10 * time.Second, LockDelay: 5 * time.Second}
	}
	return v
}

// TestVarApplyRules walks one variable through Nomad's write rules: cas
// create/update/conflict, a lock keeping others out until its TTL and
// delay pass, renew, release, rekey keeping the metadata, delete-cas.
func TestVarApplyRules(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	sec := int64(time.Second)
	steps := []struct {
		name   string
		op     structs.VarOp
		v      *structs.VariableEncrypted
		check  uint64
		now    int64
		result structs.VarOpResult
	}{
		{"cas create", structs.VarOpCAS, encVar("p", "a", ""), 0, 1 * sec, structs.VarOpResultOk},         // index 1
		{"cas=0 exists", structs.VarOpCAS, encVar("p", "b", ""), 0, 2 * sec, structs.VarOpResultConflict}, // 2
		{"cas stale", structs.VarOpCAS, encVar("p", "b", ""), 9, 2 * sec, structs.VarOpResultConflict},    // 3
		{"cas current", structs.VarOpCAS, encVar("p", "b", ""), 1, 2 * sec, structs.VarOpResultOk},        // 4
		{"acquire", structs.VarOpLockAcquire, encVar("p", "", "L1"), 0, 3 * sec, structs.VarOpResultOk},   // 5
		{"set by other", structs.VarOpSet, encVar("p", "c", ""), 0, 4 * sec, structs.VarOpResultConflict}, // 6
		{"delete by other", structs.VarOpDelete, encVar("p", "", "L2"), 0, 4 * sec, structs.VarOpResultConflict},
		{"set by holder", structs.VarOpSet, encVar("p", "c", "L1"), 0, 4 * sec, structs.VarOpResultOk}, // 8
		{"renew", structs.VarOpLockRenew, encVar("p", "", "L1"), 0, 10 * sec, structs.VarOpResultOk},   // expires 20s
		{"acquire held", structs.VarOpLockAcquire, encVar("p", "", "L2"), 0, 19 * sec, structs.VarOpResultConflict},
		{"acquire in delay", structs.VarOpLockAcquire, encVar("p", "", "L2"), 0, 22 * sec, structs.VarOpResultConflict},
		{"renew expired", structs.VarOpLockRenew, encVar("p", "", "L1"), 0, 22 * sec, structs.VarOpResultConflict},
		{"acquire after delay", structs.VarOpLockAcquire, encVar("p", "", "L2"), 0, 26 * sec, structs.VarOpResultOk},
		{"release wrong id", structs.VarOpLockRelease, encVar("p", "", "L1"), 0, 27 * sec, structs.VarOpResultConflict},
		{"release", structs.VarOpLockRelease, encVar("p", "", "L2"), 0, 27 * sec, structs.VarOpResultOk},
		{"delete-cas stale", structs.VarOpDeleteCAS, encVar("p", "", ""), 1, 28 * sec, structs.VarOpResultConflict},
	}
	for i, st := range steps {
		r := s.VarApply(uint64(i+1), &structs.VarApplyStateRequest{Op: st.op, Var: st.v, CheckIndex: st.check, Now: st.now})
		if r.Result != st.result {
			t.Fatalf("step %d %s: %+v, want %s", i+1, st.name, r, st.result)
		}
	}
	v, _ := s.VarGet(nil, "default", "p")
	if v == nil || string(v.Data) != "c" || v.Lock != nil || v.CreateIndex != 1 || v.CreateTime != sec {
		t.Fatalf("after the steps: %+v", v)
	}
	// Rekey replaces the ciphertext and keeps the metadata, only at the
	// current ModifyIndex.
	mod := v.ModifyIndex
	if r := s.VarApply(100, &structs.VarApplyStateRequest{Op: structs.VarOpRekey, Var: encVar("p", "rekeyed", ""), CheckIndex: mod - 1}); r.Result != structs.VarOpResultConflict {
		t.Fatalf("stale rekey: %+v", r)
	}
	if r := s.VarApply(101, &structs.VarApplyStateRequest{Op: structs.VarOpRekey, Var: encVar("p", "rekeyed", ""), CheckIndex: mod}); r.Result != structs.VarOpResultOk {
		t.Fatalf("rekey: %+v", r)
	}
	if v, _ := s.VarGet(nil, "default", "p"); string(v.Data) != "rekeyed" || v.ModifyIndex != mod {
		t.Fatalf("after rekey: %+v", v)
	}
	if r := s.VarApply(102, &structs.VarApplyStateRequest{Op: structs.VarOpDeleteCAS, Var: encVar("p", "", ""), CheckIndex: mod}); r.Result != structs.VarOpResultOk {
		t.Fatalf("delete-cas: %+v", r)
	}
	if v, _ := s.VarGet(nil, "default", "p"); v != nil {
		t.Fatalf("deleted variable still there: %+v", v)
	}
}

func TestRootKeyMetaOneActive(t *testing.T) {
	s, _ := New(nil)
	for i, id := range []string{"k1", "k2"} {
		if err := s.UpsertRootKeyMeta(uint64(i+1), &structs.RootKeyMeta{KeyID: id, State: structs.RootKeyStateActive}); err != nil {
			t.Fatal(err)
		}
	}
	keys, _ := s.RootKeyMetas(nil)
	if len(keys) != 2 || keys[0].KeyID != "k2" || !keys[0].IsActive() || keys[1].State != structs.RootKeyStateInactive {
		t.Fatalf("keys: %+v %+v", keys[0], keys[1])
	}
	if a, _ := s.ActiveRootKeyMeta(); a == nil || a.KeyID != "k2" {
		t.Fatalf("active: %+v", a)
	}
}
