package cli

import (
	"strings"
	"testing"
)

func TestPrintNodeKV(t *testing.T) {
	var b strings.Builder
	printNodeKV(&b, "Attributes", map[string]string{"kernel.name": "linux", "cpu.arch": "amd64"})
	want := "\nAttributes\ncpu.arch    = amd64\nkernel.name = linux\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	printNodeKV(&b, "Meta", nil)
	if b.String() != "" {
		t.Errorf("empty map printed %q", b.String())
	}
}
