package structs

// Root key states and algorithm, as Nomad's.
const (
	RootKeyStateInactive         = "inactive"
	RootKeyStateActive           = "active"
	EncryptionAlgorithmAES256GCM = "aes256-gcm"
)

// RootKeyMeta is a root key's metadata: raft state. The key material is
// kept on each server's disk (server/keyring), never in raft.
type RootKeyMeta struct {
	KeyID       string
	Algorithm   string
	CreateTime  int64
	CreateIndex uint64
	ModifyIndex uint64
	State       string
	PublishTime int64
}

// IsActive reports whether this key encrypts new variables.
func (m *RootKeyMeta) IsActive() bool { return m != nil && m.State == RootKeyStateActive }

// RootKeyMetaUpsertRequest is the raft entry writing a root key's
// metadata; when the key is active every other key becomes inactive.
type RootKeyMetaUpsertRequest struct {
	RootKeyMeta *RootKeyMeta
	WriteRequest
}

// KeyringListRequest lists root keys' metadata.
type KeyringListRequest struct {
	QueryOptions
}

// KeyringListResponse carries the keys, active first then newest first.
type KeyringListResponse struct {
	Keys []*RootKeyMeta
	QueryMeta
}

// KeyringRotateRequest makes a new active root key; Full re-encrypts every
// variable with it.
type KeyringRotateRequest struct {
	Full bool
	WriteRequest
}

// KeyringRotateResponse carries the new key's metadata.
type KeyringRotateResponse struct {
	Key *RootKeyMeta
	WriteMeta
}

// KeyringGetRequest is a server asking a peer for a root key's material
// (the keyring replicator). It is a stale read: any server that has the
// key answers.
type KeyringGetRequest struct {
	KeyID string
	QueryOptions
}

// KeyringGetResponse carries the material (nil when this server lacks it).
type KeyringGetResponse struct {
	Meta     *RootKeyMeta
	Material []byte
	QueryMeta
}
