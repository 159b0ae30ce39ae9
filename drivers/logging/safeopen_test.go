package logging

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A task that plants a symlink where the plugin (root) will write its next
// log file, or replaces the log dir or a FIFO with one, makes the plugin
// refuse, never write or read the link's target.
func TestLogPathsPlantedByTheTaskAreNotFollowed(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("host file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := NewRotator(filepath.Join(logs, "web.stdout"), 5, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(logs, "web.stdout.1")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Write([]byte("abcdEVIL")); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("write rotating into a planted symlink: %v, want ELOOP", err)
	}
	_ = r.Close()
	if b, _ := os.ReadFile(victim); string(b) != "host file\n" {
		t.Errorf("the symlink's target was written: %q", b)
	}

	// The logs dir itself replaced by a symlink.
	linked := filepath.Join(dir, "linked")
	if err := os.Symlink(dir, linked); err != nil {
		t.Fatal(err)
	}
	if _, err := NewRotator(filepath.Join(linked, "web.stdout"), 5, 4); err == nil || !strings.Contains(err.Error(), "a symlink is refused") {
		t.Errorf("log dir through a symlink: %v", err)
	}

	// A planted FIFO where a log file belongs does not block the plugin.
	if err := syscall.Mkfifo(filepath.Join(logs, "db.stdout.0"), 0o600); err != nil {
		t.Fatal(err)
	}
	// (ENXIO with no reader, ErrNotRegular with one: refused either way.)
	if _, err := NewRotator(filepath.Join(logs, "db.stdout"), 5, 4); err == nil {
		t.Error("FIFO as a log file accepted")
	}

	// The task's FIFO replaced by a symlink to a host file.
	fifo := FIFOPath(filepath.Join(logs, "web.stderr"))
	if err := os.Symlink(victim, fifo); err != nil {
		t.Fatal(err)
	}
	var sink nopCloser
	if _, err := NewPump(fifo, &sink); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("pump from a FIFO replaced by a symlink: %v, want ELOOP", err)
	}
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fifo, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewPump(fifo, &sink); !errors.Is(err, ErrNotRegular) {
		t.Errorf("pump from a regular file: %v, want ErrNotRegular", err)
	}
}

type nopCloser struct{ strings.Builder }

func (*nopCloser) Close() error { return nil }
