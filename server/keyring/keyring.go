// Package keyring holds a server's root keys and encrypts variables with
// them (AES-256-GCM). Key material lives in memory and, unless the keyring
// is in-memory (-dev), in one 0600 file per key under the keystore
// directory (<data_dir>/server/keystore); the keys' metadata (which one is
// active) is raft state kept by the caller. Safe for concurrent use.
package keyring

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/nomadish/nomadish/structs"
)

// Sentinel errors.
var (
	ErrKeyNotFound = errors.New("keyring: root key not found")
	ErrBadKey      = errors.New("keyring: bad root key")
	ErrDecrypt     = errors.New("keyring: ciphertext does not decrypt with its key")
)

// KeySize is the AES-256 key length.
const KeySize = 32

// keyFileSuffix names a key's file: <KeyID>.nks.json.
const keyFileSuffix = ".nks.json"

var validKeyID = regexp.MustCompile(`^[a-f0-9-]{36}$`)

// keyFile is a key's file content.
type keyFile struct {
	Meta *structs.RootKeyMeta
	Key  string // hex
}

// Keyring is a server's root key material by key ID.
type Keyring struct {
	dir string // "" : in memory only

	mu   sync.RWMutex
	keys map[string]key // guarded by mu
}

type key struct {
	meta *structs.RootKeyMeta
	aead cipher.AEAD
	raw  []byte
}

// New returns a keyring over dir ("" keeps keys in memory), loading the
// keys dir holds. A file that does not parse is an error naming it.
func New(dir string) (*Keyring, error) {
	k := &Keyring{dir: dir, keys: map[string]key{}}
	if dir == "" {
		return k, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("keyring: creating keystore %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("keyring: reading keystore %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), keyFileSuffix) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("keyring: reading %s: %w", path, err)
		}
		var kf keyFile
		if err := json.Unmarshal(b, &kf); err != nil || kf.Meta == nil {
			return nil, fmt.Errorf("keyring: %s does not parse as a key file: %v", path, err)
		}
		raw, err := hex.DecodeString(kf.Key)
		if err != nil {
			return nil, fmt.Errorf("keyring: %s: key is not hex: %w", path, err)
		}
		if err := k.add(kf.Meta, raw); err != nil {
			return nil, fmt.Errorf("keyring: %s: %w", path, err)
		}
	}
	return k, nil
}

// Generate makes a new random key: its metadata (ID, algorithm, create
// time now in unix nanoseconds; state left to the caller) and material.
func Generate(now int64) (*structs.RootKeyMeta, []byte, error) {
	raw := make([]byte, KeySize)
	if _, err := rand.Read(raw); err != nil {
		return nil, nil, fmt.Errorf("keyring: generating key: %w", err)
	}
	meta := &structs.RootKeyMeta{KeyID: structs.GenerateUUID(), Algorithm: structs.EncryptionAlgorithmAES256GCM, CreateTime: now}
	return meta, raw, nil
}

// Add stores a key's material (and writes its file, 0600, unless in
// memory). Adding a key already held is a no-op.
func (k *Keyring) Add(meta *structs.RootKeyMeta, raw []byte) error {
	if meta == nil || !validKeyID.MatchString(meta.KeyID) {
		return fmt.Errorf("%w: invalid key ID", ErrBadKey)
	}
	if k.Has(meta.KeyID) {
		return nil
	}
	if k.dir != "" {
		b, err := json.Marshal(keyFile{Meta: meta, Key: hex.EncodeToString(raw)})
		if err != nil {
			return err
		}
		path := filepath.Join(k.dir, meta.KeyID+keyFileSuffix)
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			return fmt.Errorf("keyring: writing %s: %w", tmp, err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("keyring: writing %s: %w", path, err)
		}
	}
	return k.add(meta, raw)
}

func (k *Keyring) add(meta *structs.RootKeyMeta, raw []byte) error {
	if len(raw) != KeySize {
		return fmt.Errorf("%w: key %s is %d bytes, want %d", ErrBadKey, meta.KeyID, len(raw), KeySize)
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	m := *meta
	k.mu.Lock()
	k.keys[meta.KeyID] = key{meta: &m, aead: aead, raw: append([]byte(nil), raw...)}
	k.mu.Unlock()
	return nil
}

// Has reports whether the keyring holds id's material.
func (k *Keyring) Has(id string) bool {
	k.mu.RLock()
	defer k.mu.RUnlock()
	_, ok := k.keys[id]
	return ok
}

// Material returns a copy of id's key and the metadata it was added with
// (for a peer's replicator); ErrKeyNotFound when absent.
func (k *Keyring) Material(id string) (*structs.RootKeyMeta, []byte, error) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	e, ok := k.keys[id]
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s", ErrKeyNotFound, id)
	}
	m := *e.meta
	return &m, append([]byte(nil), e.raw...), nil
}

// Encrypt seals plaintext with key id; aad (the variable's namespace and
// path) binds the ciphertext to its place. The result is nonce||sealed.
func (k *Keyring) Encrypt(id string, plaintext, aad []byte) ([]byte, error) {
	k.mu.RLock()
	e, ok := k.keys[id]
	k.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrKeyNotFound, id)
	}
	nonce := make([]byte, e.aead.NonceSize(), e.aead.NonceSize()+len(plaintext)+e.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("keyring: generating nonce: %w", err)
	}
	return e.aead.Seal(nonce, nonce, plaintext, aad), nil
}

// Decrypt opens ciphertext sealed by Encrypt with key id and the same aad:
// ErrKeyNotFound when the key is not held, ErrDecrypt when it does not
// open (another key, another aad, altered bytes).
func (k *Keyring) Decrypt(id string, ciphertext, aad []byte) ([]byte, error) {
	k.mu.RLock()
	e, ok := k.keys[id]
	k.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrKeyNotFound, id)
	}
	ns := e.aead.NonceSize()
	if len(ciphertext) < ns+e.aead.Overhead() {
		return nil, ErrDecrypt
	}
	out, err := e.aead.Open(nil, ciphertext[:ns], ciphertext[ns:], aad)
	if err != nil {
		return nil, ErrDecrypt
	}
	return out, nil
}
