package structs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// Migrate tokens (ephemeral_disk { migrate = true }): a replacement
// allocation on another node fetches its previous allocation's data from
// the node holding it (GET /v1/client/allocation/:id/snapshot) with a
// token only the servers and that node can compute: a MAC of the previous
// allocation's ID keyed by that node's SecretID. The servers hand it out in
// Node.GetClientAllocs (NodeClientAllocsResponse.MigrateTokens); the
// holding node checks it with its own secret. Nomad keys BLAKE2b-512 the
// same way; ours is HMAC-SHA256, URL-safe base64 as Nomad's. Tokens are
// only exchanged between nomadish agents.

// GenerateMigrateToken returns the migrate token of allocation allocID
// held by the node whose secret is nodeSecretID.
func GenerateMigrateToken(allocID, nodeSecretID string) string {
	return base64.URLEncoding.EncodeToString(migrateMAC(allocID, nodeSecretID))
}

// CompareMigrateToken reports whether token is the migrate token of
// allocID on the node whose secret is nodeSecretID, in constant time. An
// empty secret or token never matches.
func CompareMigrateToken(allocID, nodeSecretID, token string) bool {
	if nodeSecretID == "" || token == "" {
		return false
	}
	got, err := base64.URLEncoding.DecodeString(token)
	if err != nil {
		return false
	}
	return hmac.Equal(got, migrateMAC(allocID, nodeSecretID))
}

func migrateMAC(allocID, nodeSecretID string) []byte {
	h := hmac.New(sha256.New, []byte(nodeSecretID))
	h.Write([]byte(allocID))
	return h.Sum(nil)
}
