package logging

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readAll concatenates <base>.<n> for the indexes that exist, in order.
func readAll(t *testing.T, base string, from, to int) string {
	t.Helper()
	var b strings.Builder
	for i := from; i <= to; i++ {
		data, err := os.ReadFile(fmt.Sprintf("%s.%d", base, i))
		if err != nil {
			t.Fatalf("reading file %d: %v", i, err)
		}
		b.Write(data)
	}
	return b.String()
}

func TestRotatorSplitsAndPurges(t *testing.T) {
	base := filepath.Join(t.TempDir(), "logs", "web.stdout")
	r, err := NewRotator(base, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	in := "0123456789abcdefghijABCDEFGHIJklmnopqrstKLMNO" // 45 bytes -> 5 files
	for _, chunk := range []string{in[:7], in[7:33], in[33:]} {
		if n, err := r.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("write %q: n=%d err=%v", chunk, n, err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []int{0, 1} {
		if _, err := os.Stat(fmt.Sprintf("%s.%d", base, gone)); !os.IsNotExist(err) {
			t.Errorf("file %d should be purged, stat err=%v", gone, err)
		}
	}
	if got, want := readAll(t, base, 2, 4), in[20:]; got != want {
		t.Errorf("kept content = %q, want %q", got, want)
	}
}

func TestRotatorContinuesNewestFile(t *testing.T) {
	base := filepath.Join(t.TempDir(), "web.stderr")
	r, err := NewRotator(base, 10, 8)
	if err != nil {
		t.Fatal(err)
	}
	r.Write([]byte("abcdefghij")) // .0 full, .1 = "ij"
	r.Close()
	r, err = NewRotator(base, 10, 8)
	if err != nil {
		t.Fatal(err)
	}
	r.Write([]byte("klmnopq")) // .1 = "ijklmnop", .2 = "q"
	r.Close()
	if got := readAll(t, base, 0, 2); got != "abcdefghijklmnopq" {
		t.Errorf("content = %q", got)
	}
	if b, _ := os.ReadFile(base + ".1"); string(b) != "ijklmnop" {
		t.Errorf(".1 = %q, want the reopened file filled to the limit", b)
	}
}

func TestRotatorRejectsZeroSize(t *testing.T) {
	if _, err := NewRotator(filepath.Join(t.TempDir(), "x"), 1, 0); err == nil {
		t.Fatal("want error for max size 0")
	}
}
