package rpcclient

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// A frame is read exactly (what follows stays unread), oversized frames
// are refused both ways, and a refusal comes back as the coded error.
func TestHandshakeFrames(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteFrame(&buf, TunnelHello{NodeID: "n1", SecretID: "s1"}); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("yamux bytes")
	var got TunnelHello
	if err := ReadFrame(&buf, &got); err != nil || got != (TunnelHello{"n1", "s1"}) {
		t.Fatalf("ReadFrame = %+v, %v", got, err)
	}
	if buf.String() != "yamux bytes" {
		t.Fatalf("ReadFrame read past its frame: %q left", buf.String())
	}
	if err := WriteFrame(&buf, TunnelHello{NodeID: string(make([]byte, maxHandshakeFrame))}); err == nil {
		t.Fatal("an oversized frame was written")
	}
	big := binary.BigEndian.AppendUint16(nil, maxHandshakeFrame+1)
	if err := ReadFrame(bytes.NewReader(big), &got); err == nil {
		t.Fatal("an oversized frame was read")
	}
	reply := ReplyFor(structs.ErrNodeSecretMismatch)
	var ce *structs.CodedError
	if err := reply.Err(); !errors.As(err, &ce) || ce.Code != structs.ErrCodeNodeAuth {
		t.Fatalf("reply %+v -> %v", reply, err)
	}
	if r := ReplyFor(nil); r.Err() != nil {
		t.Fatal("an acceptance is an error")
	}
}
