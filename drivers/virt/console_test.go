package virt

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The copier copies what was added since its offset, keeps the offset
// beside the file for a successor, and empties the file once it is past
// its bound and fully copied.
func TestConsoleCopier(t *testing.T) {
	src := filepath.Join(t.TempDir(), "console.log")
	c := &consoleCopier{src: src, max: 10}
	appendTo := func(s string) {
		f, err := os.OpenFile(src, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	var out bytes.Buffer
	appendTo("boot\n")
	off := c.copyFrom(readOffset(src+".offset"), &out)
	appendTo("up\n")
	off = c.copyFrom(off, &out)
	if out.String() != "boot\nup\n" || off != 8 || readOffset(src+".offset") != 8 {
		t.Fatalf("copied %q, offset %d (recorded %d)", out.String(), off, readOffset(src+".offset"))
	}
	appendTo("past-the-bound\n")
	off = c.copyFrom(off, &out)
	if st, err := os.Stat(src); err != nil || st.Size() != 0 || off != 0 || readOffset(src+".offset") != 0 {
		t.Fatalf("a file past its bound: %v, %v, offset %d", st, err, off)
	}
	appendTo("after\n")
	// A successor copier (plugin restart) resumes from the recorded offset.
	c2 := &consoleCopier{src: src, max: 10}
	c2.copyFrom(readOffset(src+".offset"), &out)
	if want := "boot\nup\npast-the-bound\nafter\n"; out.String() != want || strings.Count(out.String(), "after") != 1 {
		t.Fatalf("copied %q, want %q", out.String(), want)
	}
}
