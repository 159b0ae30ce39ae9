package fsm

import "github.com/nomadish/nomadish/structs"

// The ACL entries: policies, tokens (and the bootstrap token) and roles.
// Each returns nil or the store's error (a bootstrap whose reset index
// no longer matches is a coded 400).

func (f *FSM) applyACLPolicyUpsert(buf []byte, index uint64) any {
	var req structs.ACLPolicyUpsertRequest
	decode(buf, &req, index)
	return f.logErr("upserting ACL policies", f.State().UpsertACLPolicies(index, req.Policies))
}

func (f *FSM) applyACLPolicyDelete(buf []byte, index uint64) any {
	var req structs.ACLPolicyDeleteRequest
	decode(buf, &req, index)
	return f.logErr("deleting ACL policies", f.State().DeleteACLPolicies(index, req.Names))
}

func (f *FSM) applyACLTokenUpsert(buf []byte, index uint64) any {
	var req structs.ACLTokenUpsertRequest
	decode(buf, &req, index)
	return f.logErr("upserting ACL tokens", f.State().UpsertACLTokens(index, req.Tokens))
}

func (f *FSM) applyACLTokenDelete(buf []byte, index uint64) any {
	var req structs.ACLTokenDeleteRequest
	decode(buf, &req, index)
	return f.logErr("deleting ACL tokens", f.State().DeleteACLTokens(index, req.AccessorIDs))
}

func (f *FSM) applyACLTokenBootstrap(buf []byte, index uint64) any {
	var req structs.ACLTokenBootstrapRequest
	decode(buf, &req, index)
	return f.logErr("bootstrapping ACLs", f.State().BootstrapACLToken(index, req.ResetIndex, req.Token))
}

func (f *FSM) applyACLRoleUpsert(buf []byte, index uint64) any {
	var req structs.ACLRolesUpsertRequest
	decode(buf, &req, index)
	return f.logErr("upserting ACL roles", f.State().UpsertACLRoles(index, req.ACLRoles))
}

func (f *FSM) applyACLRoleDelete(buf []byte, index uint64) any {
	var req structs.ACLRolesDeleteByIDRequest
	decode(buf, &req, index)
	return f.logErr("deleting ACL roles", f.State().DeleteACLRoles(index, req.ACLRoleIDs))
}

// logErr logs a failed apply and returns err as the entry's response (nil
// stays a nil interface).
func (f *FSM) logErr(what string, err error) any {
	if err != nil {
		f.logger.Error(what, "error", err)
		return err
	}
	return nil
}
