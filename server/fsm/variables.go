package fsm

import "github.com/nomadish/nomadish/structs"

// applyVarApply applies a variable write (ciphertext only); the response
// is the *structs.VarApplyStateResponse (ok, conflict with the stored
// variable, or error).
func (f *FSM) applyVarApply(buf []byte, index uint64) any {
	var req structs.VarApplyStateRequest
	decode(buf, &req, index)
	return f.State().VarApply(index, &req)
}

// applyRootKeyMetaUpsert writes a root key's metadata; nil or an error.
func (f *FSM) applyRootKeyMetaUpsert(buf []byte, index uint64) any {
	var req structs.RootKeyMetaUpsertRequest
	decode(buf, &req, index)
	if err := f.State().UpsertRootKeyMeta(index, req.RootKeyMeta); err != nil {
		return err
	}
	return nil
}
