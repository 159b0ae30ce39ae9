package endpoints

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// RootKeyring is the server's root key material (server/keyring.Keyring): the
// Variables endpoints encrypt and decrypt with it, the Keyring endpoints
// add keys and hand them to peers. Safe for concurrent use.
type RootKeyring interface {
	Encrypt(keyID string, plaintext, aad []byte) ([]byte, error)
	Decrypt(keyID string, ciphertext, aad []byte) ([]byte, error)
	Add(meta *structs.RootKeyMeta, raw []byte) error
	Material(keyID string) (*structs.RootKeyMeta, []byte, error)
}

var errLockID = errors.New("lock operations need the Lock.ID returned by lock-acquire")

func errUnknownOp(op structs.VarOp) error { return fmt.Errorf("unknown variable operation %q", op) }

func errLockTTL(l *structs.VariableLock) error {
	return fmt.Errorf("invalid lock: TTL %s must be between %s and %s, LockDelay %s at most %s",
		l.TTL, structs.MinVarLockTTL, structs.MaxVarLockTTL, l.LockDelay, structs.MaxVarLockTTL)
}

// varAAD binds a ciphertext to its variable's namespace and path.
func varAAD(namespace, path string) []byte { return []byte(namespace + "\x00" + path) }

func (d *Deps) keyring() (RootKeyring, error) {
	if d.Keyring == nil {
		return nil, structs.NewCodedError(structs.ErrCodeInternal, "variables: this server has no keyring")
	}
	return d.Keyring, nil
}

// encryptEntry builds the raft entry of args: its items encrypted with the
// active root key (none are sent for deletes and lock renew/release, nor
// for a lock-acquire without items, which keeps the stored ones).
func (d *Deps) encryptEntry(snap *state.StateSnapshot, args *structs.VariablesApplyRequest) (*structs.VarApplyStateRequest, error) {
	in := args.Var
	entry := &structs.VarApplyStateRequest{Op: args.Op, CheckIndex: in.ModifyIndex, Now: d.Clock.Now().UnixNano(),
		Var: &structs.VariableEncrypted{VariableMetadata: in.VariableMetadata}}
	entry.Var.CreateIndex, entry.Var.ModifyIndex, entry.Var.CreateTime, entry.Var.ModifyTime = 0, 0, 0, 0
	switch args.Op {
	case structs.VarOpSet, structs.VarOpCAS:
	case structs.VarOpLockAcquire:
		if len(in.Items) == 0 {
			return entry, nil
		}
	default:
		return entry, nil
	}
	data, err := d.sealItems(snap, in.Namespace, in.Path, in.Items)
	if err != nil {
		return nil, err
	}
	entry.Var.VariableData = data
	return entry, nil
}

// sealItems encrypts items with the active root key.
func (d *Deps) sealItems(snap *state.StateSnapshot, namespace, path string, items structs.VariableItems) (structs.VariableData, error) {
	kr, err := d.keyring()
	if err != nil {
		return structs.VariableData{}, err
	}
	active, err := d.activeRootKey(snap)
	if err != nil {
		return structs.VariableData{}, err
	}
	plain, err := json.Marshal(items)
	if err != nil {
		return structs.VariableData{}, err
	}
	ct, err := kr.Encrypt(active.KeyID, plain, varAAD(namespace, path))
	if err != nil {
		return structs.VariableData{}, structs.NewCodedError(structs.ErrCodeInternal, "variables: encrypting: %v", err)
	}
	return structs.VariableData{Data: ct, KeyID: active.KeyID}, nil
}

// rootKeyInit serializes the making of a cluster's first root key.
var rootKeyInit sync.Mutex

// activeRootKey returns the active root key's metadata; a cluster without
// one yet (no variable was ever written) gets its first key here, on the
// leader, so clusters that never use variables write nothing for them.
func (d *Deps) activeRootKey(snap *state.StateSnapshot) (*structs.RootKeyMeta, error) {
	if active, err := snap.ActiveRootKeyMeta(); err != nil || active != nil {
		return active, err
	}
	rootKeyInit.Lock()
	defer rootKeyInit.Unlock()
	if active, err := d.State().Snapshot().ActiveRootKeyMeta(); err != nil || active != nil {
		return active, err
	}
	meta, err := d.NewRootKey()
	if err == nil {
		d.Logger.Info("root keyring initialized", "key_id", meta.KeyID)
	}
	return meta, err
}

// decryptVar opens a stored variable (a copy; the stored one is shared).
func (d *Deps) decryptVar(v *structs.VariableEncrypted) (*structs.VariableDecrypted, error) {
	out := &structs.VariableDecrypted{VariableMetadata: *v.Metadata()}
	if len(v.Data) == 0 {
		out.Items = structs.VariableItems{}
		return out, nil
	}
	kr, err := d.keyring()
	if err != nil {
		return nil, err
	}
	plain, err := kr.Decrypt(v.KeyID, v.Data, varAAD(v.Namespace, v.Path))
	if err != nil {
		return nil, structs.NewCodedError(structs.ErrCodeInternal, "variables: decrypting %q with key %s: %v", v.Path, v.KeyID, err)
	}
	if err := json.Unmarshal(plain, &out.Items); err != nil {
		return nil, structs.NewCodedError(structs.ErrCodeInternal, "variables: decoding %q: %v", v.Path, err)
	}
	return out, nil
}
