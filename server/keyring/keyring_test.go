package keyring

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func newKey(t *testing.T, k *Keyring) string {
	t.Helper()
	meta, raw, err := Generate(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Add(meta, raw); err != nil {
		t.Fatal(err)
	}
	return meta.KeyID
}

func TestEncryptDecryptRotateWrongKey(t *testing.T) {
	k, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	k1 := newKey(t, k)
	secret := []byte(`{"password":"hunter2"}`)
	aad := []byte("default\x00app/db")
	ct, err := k.Encrypt(k1, secret, aad)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(ct, []byte("hunter2")) {
		t.Fatal("ciphertext holds the plaintext")
	}
	ct2, _ := k.Encrypt(k1, secret, aad)
	if bytes.Equal(ct, ct2) {
		t.Fatal("two encryptions share a nonce")
	}
	// A rotation adds a key; the old ciphertext still opens with its own.
	k2 := newKey(t, k)
	if got, err := k.Decrypt(k1, ct, aad); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("decrypt with k1 = %q, %v", got, err)
	}
	if _, err := k.Decrypt(k2, ct, aad); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("decrypt with the wrong key: %v, want ErrDecrypt", err)
	}
	if _, err := k.Decrypt(k1, ct, []byte("default\x00other")); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("decrypt with another path: %v, want ErrDecrypt", err)
	}
	if _, err := k.Decrypt("00000000-0000-0000-0000-000000000000", ct, aad); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("unknown key id: %v, want ErrKeyNotFound", err)
	}
	ct[len(ct)-1] ^= 1
	if _, err := k.Decrypt(k1, ct, aad); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("altered ciphertext: %v", err)
	}
	if _, err := k.Decrypt(k1, ct[:3], aad); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("short ciphertext: %v", err)
	}
}

func TestKeystoreOnDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keystore")
	k, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := newKey(t, k)
	ct, _ := k.Encrypt(id, []byte("v"), nil)
	fi, err := os.Stat(filepath.Join(dir, id+keyFileSuffix))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	// A restarted server loads its keys.
	k2, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := k2.Decrypt(id, ct, nil); err != nil || string(got) != "v" {
		t.Fatalf("after reload: %q, %v", got, err)
	}
	// A corrupt key file is an error naming it.
	bad := filepath.Join(dir, "x"+keyFileSuffix)
	if err := os.WriteFile(bad, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(dir); err == nil || !bytes.Contains([]byte(err.Error()), []byte(bad)) {
		t.Fatalf("corrupt file: %v", err)
	}
}

func TestAddRefusesBadKeys(t *testing.T) {
	k, _ := New("")
	meta, raw, _ := Generate(1)
	if err := k.Add(meta, raw[:16]); !errors.Is(err, ErrBadKey) {
		t.Fatalf("short key: %v", err)
	}
	meta.KeyID = "../../etc/passwd"
	if err := k.Add(meta, raw); !errors.Is(err, ErrBadKey) {
		t.Fatalf("bad id: %v", err)
	}
}
