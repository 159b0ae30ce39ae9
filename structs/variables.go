package structs

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Variables and root keyring raft message types (this range: 90..99).
const (
	VarApplyStateRequestType     MessageType = 90 // VarApplyStateRequest
	RootKeyMetaUpsertRequestType MessageType = 91 // RootKeyMetaUpsertRequest
)

// Variables and keyring RPC methods.
const (
	VariablesApplyRPC        = "Variables.Apply"
	VariablesReadRPC         = "Variables.Read"
	VariablesListRPC         = "Variables.List"
	VariablesWorkloadReadRPC = "Variables.WorkloadRead"
	VariablesWorkloadListRPC = "Variables.WorkloadList"
	KeyringListRPC           = "Keyring.List"
	KeyringRotateRPC         = "Keyring.Rotate"
	KeyringGetRPC            = "Keyring.Get"
)

// Variable limits, as Nomad's.
const (
	// MaxVariableSize bounds the encoded size of a variable's items.
	MaxVariableSize = 64 * 1024
	// DefaultVarLockTTL and DefaultVarLockDelay apply when a lock-acquire
	// leaves them unset; MinVarLockTTL and MaxVarLockTTL bound the TTL.
	DefaultVarLockTTL   = 15 * time.Second
	DefaultVarLockDelay = 15 * time.Second
	MinVarLockTTL       = 10 * time.Second
	MaxVarLockTTL       = 24 * time.Hour
)

var validVariablePath = regexp.MustCompile("^[a-zA-Z0-9-_~/]{1,128}$")

// VariableMetadata is what a variable list shows: everything but the items.
type VariableMetadata struct {
	Namespace   string
	Path        string
	CreateIndex uint64
	ModifyIndex uint64
	CreateTime  int64
	ModifyTime  int64
	// Lock is set while the variable is held as a lock. Its ID is only
	// given to the holder (in the lock-acquire answer).
	Lock *VariableLock `json:",omitempty"`
}

// VariableLock is a lock held on a variable; TTL and LockDelay are JSON
// duration strings ("15s"), as Nomad's.
type VariableLock struct {
	ID        string
	TTL       time.Duration
	LockDelay time.Duration
}

type variableLockJSON struct {
	ID        string
	TTL       string
	LockDelay string
}

// MarshalJSON writes TTL and LockDelay as duration strings.
func (l *VariableLock) MarshalJSON() ([]byte, error) {
	return json.Marshal(variableLockJSON{ID: l.ID, TTL: l.TTL.String(), LockDelay: l.LockDelay.String()})
}

// UnmarshalJSON reads TTL and LockDelay as duration strings ("" is 0).
func (l *VariableLock) UnmarshalJSON(b []byte) error {
	var in variableLockJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	l.ID = in.ID
	for _, f := range []struct {
		name, s string
		out     *time.Duration
	}{{"TTL", in.TTL, &l.TTL}, {"LockDelay", in.LockDelay, &l.LockDelay}} {
		if f.s == "" {
			continue
		}
		d, err := time.ParseDuration(f.s)
		if err != nil {
			return fmt.Errorf("Lock.%s: %v", f.name, err)
		}
		*f.out = d
	}
	return nil
}

// VariableItems are a variable's key/value pairs.
type VariableItems map[string]string

// Size is the number of bytes the items hold (keys and values).
func (vi VariableItems) Size() int {
	n := 0
	for k, v := range vi {
		n += len(k) + len(v)
	}
	return n
}

// VariableDecrypted is a variable with its items in clear: what the HTTP
// API and the CLI show. It never enters raft.
type VariableDecrypted struct {
	VariableMetadata
	Items VariableItems `json:",omitempty"`
}

// VariableData is a variable's items, encrypted with the root key KeyID.
type VariableData struct {
	Data  []byte
	KeyID string
}

// VariableEncrypted is a variable as raft, the state store and snapshots
// hold it: metadata and ciphertext.
type VariableEncrypted struct {
	VariableMetadata
	VariableData
	// LockExpires is when the lock's TTL runs out (unix nanoseconds, the
	// leader's clock at acquire or renew plus the TTL); after it and its
	// LockDelay the lock may be taken by another holder.
	LockExpires int64 `json:"-"`
}

// Metadata returns a copy of the metadata.
func (v *VariableEncrypted) Metadata() *VariableMetadata {
	m := v.VariableMetadata
	if m.Lock != nil {
		l := *m.Lock
		m.Lock = &l
	}
	return &m
}

// Copy returns a deep copy.
func (v *VariableEncrypted) Copy() *VariableEncrypted {
	if v == nil {
		return nil
	}
	c := *v
	c.VariableMetadata = *v.Metadata()
	c.Data = append([]byte(nil), v.Data...)
	return &c
}

// ValidateVariablePath checks a variable path as Nomad does: 1-128 of
// [a-zA-Z0-9-_~/], no leading, trailing or doubled "/", and under "nomad/"
// only "nomad/jobs" and "nomad/job-templates".
func ValidateVariablePath(p string) error {
	if p == "" {
		return fmt.Errorf("variable requires path")
	}
	if !validVariablePath.MatchString(p) {
		return fmt.Errorf("invalid path %q: must be 1-128 characters of [a-zA-Z0-9-_~/]", p)
	}
	if strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
		return fmt.Errorf("invalid path %q: no leading, trailing or empty path segment allowed", p)
	}
	parts := strings.Split(p, "/")
	if parts[0] != "nomad" {
		return nil
	}
	if len(parts) == 1 || (parts[1] != "jobs" && parts[1] != "job-templates") {
		return fmt.Errorf("%q is a reserved top-level directory path, but you may write variables to \"nomad/jobs\", \"nomad/job-templates\", or below", "nomad")
	}
	return nil
}

// Validate checks a variable submitted for a write.
func (v *VariableDecrypted) Validate() error {
	if err := ValidateVariablePath(v.Path); err != nil {
		return err
	}
	if len(v.Items) == 0 {
		return fmt.Errorf("variable missing required Items object")
	}
	for k := range v.Items {
		if k == "" {
			return fmt.Errorf("variable %q: an item key must not be empty", v.Path)
		}
	}
	if n := v.Items.Size(); n > MaxVariableSize {
		return fmt.Errorf("variables are limited to %d bytes in total size; %q holds %d", MaxVariableSize, v.Path, n)
	}
	return nil
}

// Canonicalize fills the namespace.
func (v *VariableDecrypted) Canonicalize() {
	if v.Namespace == "" {
		v.Namespace = DefaultNamespaceName
	}
}

// VarOp is a variable write operation.
type VarOp string

// Variable write operations, as Nomad's.
const (
	VarOpSet         VarOp = "set"
	VarOpDelete      VarOp = "delete"
	VarOpDeleteCAS   VarOp = "delete-cas"
	VarOpCAS         VarOp = "cas"
	VarOpLockAcquire VarOp = "lock-acquire"
	VarOpLockRenew   VarOp = "lock-renew"
	VarOpLockRelease VarOp = "lock-release"
	// VarOpRekey replaces the ciphertext of a variable whose ModifyIndex is
	// still CheckIndex, keeping its metadata (keyring rotate -full).
	VarOpRekey VarOp = "rekey"
)

// VarOpResult is what a write did.
type VarOpResult string

// Results of a variable write.
const (
	VarOpResultOk       VarOpResult = "ok"
	VarOpResultConflict VarOpResult = "conflict"
	VarOpResultRedacted VarOpResult = "conflict-redacted"
	VarOpResultError    VarOpResult = "error"
)

// VariablesApplyRequest is Variables.Apply: an operation on one variable
// (Var.Items in clear; the server encrypts them before raft).
type VariablesApplyRequest struct {
	Op  VarOp
	Var *VariableDecrypted
	WriteRequest
}

// VariablesApplyResponse answers Variables.Apply: Output is the written
// variable (nil after a delete), Conflict the current one on a CAS or lock
// conflict (nil when absent; items left out without read permission).
type VariablesApplyResponse struct {
	Op       VarOp
	Result   VarOpResult
	Error    string
	Conflict *VariableDecrypted
	Output   *VariableDecrypted
	WriteMeta
}

// IsConflict reports a CAS or lock conflict.
func (r *VariablesApplyResponse) IsConflict() bool {
	return r.Result == VarOpResultConflict || r.Result == VarOpResultRedacted
}

// VarApplyStateRequest is the raft entry of a variable write: the
// operation on the encrypted variable, with the leader's time.
type VarApplyStateRequest struct {
	Op  VarOp
	Var *VariableEncrypted
	// CheckIndex is the CAS index (cas, delete-cas, rekey).
	CheckIndex uint64
	// Now is the leader's time (unix nanoseconds): CreateTime, ModifyTime
	// and lock expiry are computed from it, so every server agrees.
	Now int64
}

// VarApplyStateResponse is the FSM's answer to a VarApplyStateRequest.
type VarApplyStateResponse struct {
	Result VarOpResult
	// Conflict is the stored variable on a conflict (nil: absent).
	Conflict *VariableEncrypted
	// Written is the variable as stored (nil after a delete).
	Written *VariableEncrypted
	Error   string
}

// VariablesReadRequest reads one variable.
type VariablesReadRequest struct {
	Path string
	QueryOptions
}

// VariablesReadResponse carries the variable, nil when absent.
type VariablesReadResponse struct {
	Data *VariableDecrypted
	QueryMeta
}

// VariablesListRequest lists variables by path prefix (QueryOptions.Prefix)
// in QueryOptions.Namespace ("*": every namespace).
type VariablesListRequest struct {
	QueryOptions
}

// VariablesListResponse carries the list, sorted by namespace and path.
type VariablesListResponse struct {
	Data []*VariableMetadata
	QueryMeta
}

// VariablesWorkloadRequest is a client's read (Path) or list (Prefix) on
// behalf of a task: the node's secret in AuthToken and the allocation and
// task the access is for.
type VariablesWorkloadRequest struct {
	AllocID string
	Task    string
	Path    string
	QueryOptions
}

// VariablesWorkloadResponse answers a workload read (Data; nil when
// absent) or list (List, with items).
type VariablesWorkloadResponse struct {
	Data *VariableDecrypted
	List []*VariableDecrypted
	QueryMeta
}
