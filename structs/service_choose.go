package structs

import (
	"crypto/sha256"
	"encoding/binary"
)

// RendezvousWeight is the weight of the service instance id for key in
// Nomad's `choose=<n>|<key>` (highest random weight hashing): the n
// instances of highest weight are chosen, so one key keeps its instances
// while they live and losing one moves only the keys that had it. The
// servers' GetService and the templates' nomadService n "key" agree
// through this one function.
func RendezvousWeight(key, id string) uint64 {
	sum := sha256.Sum256([]byte(key + "\x00" + id))
	return binary.BigEndian.Uint64(sum[:8])
}
