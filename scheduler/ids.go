package scheduler

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// idSource hands out random (version 4) UUIDs in structs.GenerateUUID's
// format, reading the random bytes for 64 of them at a time: a job's
// placements cost one read of the system's random source per 64
// allocations instead of one each, and no fmt. Owned by the goroutine
// running Process.
type idSource struct {
	buf  [64 * 16]byte
	next int // the next unused 16 bytes of buf; len(buf): refill
}

func newIDSource() *idSource { return &idSource{next: len(idSource{}.buf)} }

// uuid returns a new random UUID.
func (s *idSource) uuid() string {
	if s.next == len(s.buf) {
		if _, err := rand.Read(s.buf[:]); err != nil {
			// crypto/rand.Read does not fail on supported platforms.
			panic(fmt.Sprintf("scheduler: reading random bytes: %v", err))
		}
		s.next = 0
	}
	b := s.buf[s.next : s.next+16]
	s.next += 16
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:16])
	return string(out[:])
}
