package endpoints

import (
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/keyring"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Keyring serves the Keyring.* RPCs: the root keys' metadata (list,
// rotate; management tokens, as Nomad) and, for the servers' keyring
// replicators, a key's material (Get).
type Keyring struct{ d *Deps }

// List lists the root keys' metadata, active first; blocking.
func (e *Keyring) List(args *structs.KeyringListRequest, reply *structs.KeyringListResponse) error {
	if err := e.d.allowManagement(args.AuthToken, "keyring list"); err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableRootKeys}, func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		keys, err := st.RootKeyMetas(nil)
		if err != nil {
			return 0, err
		}
		reply.Keys = make([]*structs.RootKeyMeta, 0, len(keys))
		for _, k := range keys {
			c := *k
			reply.Keys = append(reply.Keys, &c)
		}
		return st.Index(state.TableRootKeys)
	})
}

// Rotate makes a new active root key (its material stored on this
// server, the leader, before its metadata commits); with Full every
// variable is then re-encrypted with it (a variable written meanwhile is
// left to its newer ciphertext).
func (e *Keyring) Rotate(args *structs.KeyringRotateRequest, reply *structs.KeyringRotateResponse) error {
	if err := e.d.allowManagement(args.AuthToken, "keyring rotate"); err != nil {
		return err
	}
	meta, err := e.d.NewRootKey()
	if err != nil {
		return err
	}
	reply.Key, reply.Index = meta, meta.ModifyIndex
	if !args.Full {
		return nil
	}
	snap := e.d.State().Snapshot()
	vars, err := snap.VarsByPrefix(structs.AllNamespaces, "")
	if err != nil {
		return err
	}
	for _, v := range vars {
		if v.KeyID == meta.KeyID || len(v.Data) == 0 {
			continue
		}
		dv, err := e.d.decryptVar(v)
		if err != nil {
			return err
		}
		data, err := e.d.sealItems(snap, v.Namespace, v.Path, dv.Items)
		if err != nil {
			return err
		}
		entry := &structs.VarApplyStateRequest{Op: structs.VarOpRekey, CheckIndex: v.ModifyIndex, Now: e.d.Clock.Now().UnixNano(),
			Var: &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: v.Namespace, Path: v.Path}, VariableData: data}}
		index, _, err := e.d.Apply(structs.VarApplyStateRequestType, entry)
		if err != nil {
			return err
		}
		reply.Index = index
	}
	return nil
}

// NewRootKey generates a key, stores its material in the keyring and
// commits its metadata as the active key (the leader calls it when the
// cluster has no key yet, and Keyring.Rotate). It returns the metadata as
// committed.
func (d *Deps) NewRootKey() (*structs.RootKeyMeta, error) {
	kr, err := d.keyring()
	if err != nil {
		return nil, err
	}
	now := d.Clock.Now().UnixNano()
	meta, raw, err := keyring.Generate(now)
	if err != nil {
		return nil, err
	}
	meta.State, meta.PublishTime = structs.RootKeyStateActive, now
	if err := kr.Add(meta, raw); err != nil {
		return nil, err
	}
	index, resp, err := d.Apply(structs.RootKeyMetaUpsertRequestType, &structs.RootKeyMetaUpsertRequest{RootKeyMeta: meta})
	if err != nil {
		return nil, err
	}
	if err, ok := resp.(error); ok {
		return nil, err
	}
	meta.CreateIndex, meta.ModifyIndex = index, index
	return meta, nil
}

// Get hands a root key's material to a peer server's replicator (a stale
// read: any server holding the key answers; Material nil when this one
// does not). Only servers call it; with mutual TLS on the RPC port only
// they can (the port is otherwise trusted, as Nomad's).
func (e *Keyring) Get(args *structs.KeyringGetRequest, reply *structs.KeyringGetResponse) error {
	kr, err := e.d.keyring()
	if err != nil {
		return err
	}
	meta, raw, err := kr.Material(args.KeyID)
	if err != nil {
		return nil // not held here: the caller asks another server
	}
	reply.Meta, reply.Material = meta, raw
	return nil
}
