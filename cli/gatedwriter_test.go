package cli

import (
	"bytes"
	"testing"
)

func TestGatedWriterHoldsUntilFlush(t *testing.T) {
	var out bytes.Buffer
	g := newGatedWriter(&out)
	_, _ = g.Write([]byte("a\n"))
	_, _ = g.Write([]byte("b\n"))
	if out.Len() != 0 {
		t.Fatalf("wrote before Flush: %q", out.String())
	}
	out.WriteString("banner\n")
	g.Flush()
	_, _ = g.Write([]byte("c\n"))
	if got, want := out.String(), "banner\na\nb\nc\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
