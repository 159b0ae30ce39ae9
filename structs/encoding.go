package structs

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/go-msgpack/v2/codec"
)

// MsgpackHandle is the codec for raft entries, snapshots and RPC.
//
// Its MaxInitLen is left at 0 on purpose: the decoder then makes at most
// 256 KiB (elements under 64 bytes) or 4096 elements up front for a
// declared length and grows as bytes arrive, so a header declaring 2^32
// elements costs what is sent. MaxInitLen counts elements, not bytes, so
// any fixed value is worse for large elements. Extensions are the
// exception (a time extension allocates its declared length at once); the
// server's RPC reader refuses lengths beyond its byte budget
// (server/rpcserver/codec.go).
var MsgpackHandle = NewMsgpackHandle()

// NewMsgpackHandle returns a handle with MsgpackHandle's settings, for a
// caller that needs to change one (the server decodes snapshot restores
// with a larger MaxInitLen).
func NewMsgpackHandle() *codec.MsgpackHandle {
	h := &codec.MsgpackHandle{}
	h.RawToString = true
	h.MapType = reflect.TypeOf(map[string]any(nil))
	return h
}

// Encode writes a message type byte followed by the msgpack of msg: the
// format of every raft log entry (CONVENTIONS 9).
func Encode(t MessageType, msg any) ([]byte, error) {
	// Encoded in a pooled buffer, then copied out exactly as long as the
	// entry: raft's log cache keeps the last 512 entries' bytes in memory,
	// and growing a fresh buffer to a plan of 10,000 placements (several
	// MB) allocated two to three times its size every time.
	buf := encodeBufs.Get().(*bytes.Buffer)
	defer putEncodeBuf(buf)
	buf.WriteByte(uint8(t))
	if err := codec.NewEncoder(buf, MsgpackHandle).Encode(msg); err != nil {
		return nil, fmt.Errorf("encoding message type %d: %w", t, err)
	}
	return bytes.Clone(buf.Bytes()), nil
}

// encodeBufs are Encode's buffers; one grown past maxPooledEncodeBuf is
// dropped rather than kept for ever.
var encodeBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledEncodeBuf = 64 << 20

func putEncodeBuf(b *bytes.Buffer) {
	if b.Cap() > maxPooledEncodeBuf {
		return
	}
	b.Reset()
	encodeBufs.Put(b)
}

// Decode reads msgpack into out.
func Decode(buf []byte, out any) error {
	// From the byte slice, not an io.Reader: a length the input claims is
	// checked against the bytes there are, where the reader decoder spun
	// reading a claimed multi-GiB []byte chunk by chunk.
	return codec.NewDecoderBytes(buf, MsgpackHandle).Decode(out)
}

// CopyVia deep-copies in into out through msgpack. Used by Copy methods; they
// are off the hot path of the scheduler (which never copies per node).
func CopyVia(in, out any) {
	var buf bytes.Buffer
	if err := codec.NewEncoder(&buf, MsgpackHandle).Encode(in); err != nil {
		// A type that cannot round-trip through msgpack is a programming
		// error in this package: every struct here is plain data.
		panic(fmt.Sprintf("structs: copy encode: %v", err))
	}
	if err := codec.NewDecoderBytes(buf.Bytes(), MsgpackHandle).Decode(out); err != nil {
		panic(fmt.Sprintf("structs: copy decode: %v", err))
	}
}

// GenerateUUID returns a random RFC 4122 version 4 UUID string.
func GenerateUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("structs: reading random bytes: %v", err))
	}
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
