package endpoints

import (
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Variables serves the Variables.* RPCs: Nomad Variables, encrypted with
// the active root key before they enter raft (variables_crypt.go), checked
// against the token's `variables` rules (read, list, write, destroy), or
// for a task's own paths against its allocation (variables_workload.go).
type Variables struct{ d *Deps }

// opCapability is the variables capability an operation needs.
func opCapability(op structs.VarOp) string {
	switch op {
	case structs.VarOpDelete, structs.VarOpDeleteCAS:
		return acl.VariablesCapabilityDestroy
	}
	return acl.VariablesCapabilityWrite
}

// Apply writes, deletes, checks-and-sets or locks one variable. A CAS or
// lock conflict is not an error: reply.Result says conflict and
// reply.Conflict holds the stored variable (items only when the token may
// read it; nil when absent). Bad input is a 400 and writes nothing.
func (e *Variables) Apply(args *structs.VariablesApplyRequest, reply *structs.VariablesApplyResponse) error {
	in := args.Var
	if in == nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "variable missing")
	}
	if in.Namespace == "" {
		in.Namespace = namespaceOf(args.Namespace)
	}
	a, accessor, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	if need := opCapability(args.Op); !a.AllowVariableOperation(in.Namespace, in.Path, need) {
		return e.d.denied(accessor, in.Namespace, "variables "+need+" "+in.Path)
	}
	if err := validateApply(args); err != nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "%v", err)
	}
	snap := e.d.State().Snapshot()
	if ns, err := snap.NamespaceByName(nil, in.Namespace); err != nil {
		return err
	} else if ns == nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "namespace %q does not exist", in.Namespace)
	}
	entry, err := e.d.encryptEntry(snap, args)
	if err != nil {
		return err
	}
	index, resp, err := e.d.Apply(structs.VarApplyStateRequestType, entry)
	if err != nil {
		return err
	}
	out, ok := resp.(*structs.VarApplyStateResponse)
	if !ok {
		if err, isErr := resp.(error); isErr {
			return err
		}
		return structs.NewCodedError(structs.ErrCodeInternal, "variable write: unexpected FSM response %T", resp)
	}
	reply.Op, reply.Result, reply.Error, reply.Index = args.Op, out.Result, out.Error, index
	switch out.Result {
	case structs.VarOpResultError:
		return structs.NewCodedError(structs.ErrCodeInternal, "%s", out.Error)
	case structs.VarOpResultConflict:
		if out.Conflict == nil {
			return nil
		}
		if a.AllowVariableOperation(in.Namespace, in.Path, acl.VariablesCapabilityRead) {
			reply.Conflict, err = e.d.decryptVar(out.Conflict)
			if err != nil {
				return err
			}
		} else {
			reply.Result = structs.VarOpResultRedacted
			reply.Conflict = &structs.VariableDecrypted{VariableMetadata: *out.Conflict.Metadata()}
		}
		hideLockID(reply.Conflict, "")
		return nil
	}
	if out.Written != nil {
		if reply.Output, err = e.d.decryptVar(out.Written); err != nil {
			return err
		}
		holder := ""
		if in.Lock != nil {
			holder = in.Lock.ID
		}
		hideLockID(reply.Output, holder)
	}
	return nil
}

// hideLockID clears the lock's ID unless the caller holds it (holder).
func hideLockID(v *structs.VariableDecrypted, holder string) {
	if v != nil && v.Lock != nil && (holder == "" || v.Lock.ID != holder) {
		l := *v.Lock
		l.ID = ""
		v.Lock = &l
	}
}

// validateApply checks the operation and the variable it carries, and
// fills lock defaults.
func validateApply(args *structs.VariablesApplyRequest) error {
	in := args.Var
	if err := structs.ValidateVariablePath(in.Path); err != nil {
		return err
	}
	switch args.Op {
	case structs.VarOpSet, structs.VarOpCAS:
		return in.Validate()
	case structs.VarOpDelete, structs.VarOpDeleteCAS:
		return nil
	case structs.VarOpLockAcquire:
		if n := in.Items.Size(); n > structs.MaxVariableSize {
			return in.Validate()
		}
		if in.Lock == nil {
			in.Lock = &structs.VariableLock{}
		}
		if in.Lock.TTL == 0 {
			in.Lock.TTL = structs.DefaultVarLockTTL
		}
		if in.Lock.LockDelay == 0 {
			in.Lock.LockDelay = structs.DefaultVarLockDelay
		}
		if in.Lock.TTL < structs.MinVarLockTTL || in.Lock.TTL > structs.MaxVarLockTTL {
			return errLockTTL(in.Lock)
		}
		if in.Lock.LockDelay < 0 || in.Lock.LockDelay > structs.MaxVarLockTTL {
			return errLockTTL(in.Lock)
		}
		in.Lock.ID = structs.GenerateUUID()
		return nil
	case structs.VarOpLockRenew, structs.VarOpLockRelease:
		if in.Lock == nil || in.Lock.ID == "" {
			return errLockID
		}
		return nil
	}
	return errUnknownOp(args.Op)
}

// Read returns one variable with its items (nil when absent); blocking on
// the variable's ModifyIndex.
func (e *Variables) Read(args *structs.VariablesReadRequest, reply *structs.VariablesReadResponse) error {
	ns := namespaceOf(args.Namespace)
	a, accessor, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	if !a.AllowVariableOperation(ns, args.Path, acl.VariablesCapabilityRead) {
		return e.d.denied(accessor, ns, "variables read "+args.Path)
	}
	return e.readVar(&args.QueryOptions, &reply.QueryMeta, ns, args.Path, &reply.Data)
}

// readVar answers a (blocking) read of the variable at path in ns into
// *out: nil when absent (the variables table's index then), decrypted and
// without its lock ID otherwise (its modify index).
func (e *Variables) readVar(q *structs.QueryOptions, m *structs.QueryMeta, ns, path string, out **structs.VariableDecrypted) error {
	return e.d.blockingRPC(q, m, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		v, err := st.VarGet(ws, ns, path)
		if err != nil {
			return 0, err
		}
		*out = nil
		if v == nil {
			return st.Index(state.TableVariables)
		}
		if *out, err = e.d.decryptVar(v); err != nil {
			return 0, err
		}
		hideLockID(*out, "")
		return v.ModifyIndex, nil
	})
}

// List lists the metadata of the variables under args.Prefix in the
// request's namespace ("*": all) that the token may list; blocking on the
// variables table.
func (e *Variables) List(args *structs.VariablesListRequest, reply *structs.VariablesListResponse) error {
	ns := namespaceOf(args.Namespace)
	a, _, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableVariables}, func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		vars, err := st.VarsByPrefix(ns, args.Prefix)
		if err != nil {
			return 0, err
		}
		reply.Data = make([]*structs.VariableMetadata, 0, len(vars))
		for _, v := range vars {
			if a.AllowVariableOperation(v.Namespace, v.Path, acl.VariablesCapabilityList) {
				m := v.Metadata()
				if m.Lock != nil {
					m.Lock.ID = ""
				}
				reply.Data = append(reply.Data, m)
			}
		}
		return st.Index(state.TableVariables)
	})
}
