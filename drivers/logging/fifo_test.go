package logging

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func newPump(t *testing.T) (task *os.File, base string, p *Pump) {
	t.Helper()
	base = filepath.Join(t.TempDir(), "t.stdout")
	fifo := FIFOPath(base)
	if want := filepath.Join(filepath.Dir(base), ".t.stdout.fifo"); fifo != want {
		t.Fatalf("FIFOPath = %s, want %s", fifo, want)
	}
	task, err := OpenTaskEnd(fifo)
	if err != nil {
		t.Fatal(err)
	}
	rot, err := NewRotator(base, 2, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	p, err = NewPump(fifo, rot)
	if err != nil {
		t.Fatal(err)
	}
	return task, base, p
}

// While a writer still holds the FIFO open (a background child of the
// task), Sync still returns once everything written so far is in the file.
func TestPumpSyncWithOpenWriter(t *testing.T) {
	task, base, p := newPump(t)
	defer p.Close()
	defer task.Close()
	want := strings.Repeat("line of output\n", 5000) // > pipe buffer
	for round := 0; round < 3; round++ {
		done := make(chan error, 1)
		go func() { _, err := task.WriteString(want); done <- err }()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := p.Sync(ctx); err != nil {
			t.Fatalf("sync: %v", err)
		}
		cancel()
		got, _ := os.ReadFile(base + ".0")
		if len(got) != (round+1)*len(want) {
			t.Fatalf("round %d: file has %d bytes, want %d", round, len(got), (round+1)*len(want))
		}
	}
}

// When the last writer closes, the pump drains and stops by itself.
func TestPumpStopsAtEOF(t *testing.T) {
	task, base, p := newPump(t)
	task.WriteString("bye\n")
	task.Close()
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("pump did not stop after the writer closed")
	}
	if got, _ := os.ReadFile(base + ".0"); string(got) != "bye\n" {
		t.Fatalf("got %q", got)
	}
	if err := p.Sync(context.Background()); err != nil {
		t.Fatalf("sync after stop: %v", err)
	}
}
