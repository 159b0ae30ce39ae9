package shared

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// Concurrent readers of one key at one index share one build; a new index
// builds again; errors are not remembered.
func TestCacheSharesOneBuild(t *testing.T) {
	var c Cache
	var builds atomic.Int64
	build := func() (any, error) { builds.Add(1); return []int{1, 2, 3}, nil }
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if v, err := c.Get("k", 7, build); err != nil || len(v.([]int)) != 3 {
				t.Error(v, err)
			}
		})
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Fatalf("%d builds for one key and index, want 1", n)
	}
	if _, err := c.Get("k", 8, build); err != nil || builds.Load() != 2 {
		t.Fatalf("a new index: %d builds, %v", builds.Load(), err)
	}
	boom := errors.New("boom")
	if _, err := c.Get("e", 1, func() (any, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if v, err := c.Get("e", 1, build); err != nil || v == nil {
		t.Fatalf("after an error: %v %v", v, err)
	}
}

// A build that panics wakes the callers waiting for it, who then build
// themselves; the panic goes to the builder.
func TestCachePanickedBuildReleasesWaiters(t *testing.T) {
	var c Cache
	started, release := make(chan struct{}), make(chan struct{})
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		c.Get("k", 1, func() (any, error) { close(started); <-release; panic("boom") })
	}()
	<-started
	got := make(chan any, 1)
	go func() {
		v, err := c.Get("k", 1, func() (any, error) { return "rebuilt", nil })
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	close(release)
	if r := <-panicked; r != "boom" {
		t.Fatalf("builder recovered %v, want the panic", r)
	}
	if v := <-got; v != "rebuilt" {
		t.Fatalf("waiter got %v", v)
	}
}
