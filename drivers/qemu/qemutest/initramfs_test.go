package qemutest

import (
	"bytes"
	"testing"
)

// One file and the trailer, byte for byte: 110-byte header, name + NUL
// padded to 4, data padded to 4.
func TestWriteNewc(t *testing.T) {
	var b bytes.Buffer
	if err := WriteNewc(&b, []Entry{{Name: "init", Mode: ModeFile | 0o755, Data: []byte("hi\n")}}); err != nil {
		t.Fatal(err)
	}
	want := "070701" + "00000001" + "000081ED" + "00000000" + "00000000" + "00000001" + "00000000" +
		"00000003" + "00000000" + "00000000" + "00000000" + "00000000" + "00000005" + "00000000" +
		"init\x00" + "\x00" + // 110 + 5 = 115, padded to 116
		"hi\n\x00" +
		"070701" + "00000000" + "00000000" + "00000000" + "00000000" + "00000001" + "00000000" +
		"00000000" + "00000000" + "00000000" + "00000000" + "00000000" + "0000000B" + "00000000" +
		"TRAILER!!!\x00" + "\x00" // 110 + 11 = 121, padded to 124
	want += "\x00\x00"
	if got := b.String(); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
