package netns_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/internal/netns"
	"github.com/nomadish/nomadish/drivers/internal/netns/netnstest"
)

// A command started in a namespace lives there; the caller does not move.
func TestStartInNamespace(t *testing.T) {
	path, link := netnstest.New(t)
	before := netnstest.Link(t, os.Getpid())
	cmd := exec.Command("readlink", "/proc/self/ns/net")
	var out strings.Builder
	cmd.Stdout = &out
	if err := netns.Start(path, cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != link {
		t.Fatalf("child in %s, want %s", got, link)
	}
	if link == before {
		t.Fatal("the test namespace is the host's")
	}
	// every thread of ours is still in the host namespace
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		l, err := os.Readlink("/proc/self/task/" + e.Name() + "/ns/net")
		if err == nil && l != before {
			t.Fatalf("thread %s left in %s", e.Name(), l)
		}
	}
}

func TestNotANamespace(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	err = netns.Start(f.Name(), exec.Command("true"))
	if !errors.Is(err, netns.ErrNotNetNS) {
		t.Fatalf("got %v, want ErrNotNetNS", err)
	}
	if err := netns.Start("/nonexistent/ns", exec.Command("true")); err == nil || !strings.Contains(err.Error(), "/nonexistent/ns") {
		t.Fatalf("missing file: %v", err)
	}
}
