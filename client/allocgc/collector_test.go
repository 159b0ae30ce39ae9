package allocgc

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/internal/clock"
	"github.com/nomadish/nomadish/internal/clock/clocktest"
)

var _ DiskStats = StatFS{}

// fakeRunners is a client: allocations, and a destroy that frees disk.
type fakeRunners struct {
	mu        sync.Mutex
	allocs    map[string]Alloc
	destroyed []string
	disk      *fakeDisk
	perAlloc  float64       // disk percent each destroy frees
	gate      chan struct{} // when set, each destroy waits for a value
	inFlight  int
	maxFlight int
}

func newRunners(allocs ...Alloc) *fakeRunners {
	r := &fakeRunners{allocs: map[string]Alloc{}}
	for _, a := range allocs {
		r.allocs[a.ID] = a
	}
	return r
}

func (r *fakeRunners) Allocs() []Alloc {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Alloc, 0, len(r.allocs))
	for _, a := range r.allocs {
		out = append(out, a)
	}
	return out
}

func (r *fakeRunners) Destroy(id string) error {
	r.mu.Lock()
	if _, ok := r.allocs[id]; !ok {
		r.mu.Unlock()
		return ErrUnknownAlloc
	}
	delete(r.allocs, id)
	r.inFlight++
	r.maxFlight = max(r.maxFlight, r.inFlight)
	gate := r.gate
	r.mu.Unlock()
	if gate != nil {
		<-gate
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inFlight--
	r.destroyed = append(r.destroyed, id)
	if r.disk != nil {
		r.disk.free(r.perAlloc)
	}
	return nil
}

func (r *fakeRunners) gone() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.destroyed)
}

type fakeDisk struct {
	mu sync.Mutex
	u  DiskUsage
}

func (d *fakeDisk) Usage(string) (DiskUsage, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.u, nil
}

func (d *fakeDisk) free(p float64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.u.UsedPercent -= p
}

func TestKeepUnderLimitsDiskOldestFirstUntilUnder(t *testing.T) {
	disk := &fakeDisk{u: DiskUsage{UsedPercent: 95}}
	r := newRunners(dead("d3", 3), dead("d1", 1), live("run"), dead("d2", 2), dead("d4", 4))
	r.disk, r.perAlloc = disk, 6 // 95 -> 89 -> 83 -> 77: three go
	c := New(Config{}, r, disk, "/alloc", clocktest.NewFakeClock(), nil)
	if err := c.KeepUnderLimits(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := r.gone(), []string{"d1", "d2", "d3"}; !slices.Equal(got, want) {
		t.Fatalf("destroyed %v, want %v", got, want)
	}
}

func TestKeepUnderLimitsNeverALiveAlloc(t *testing.T) {
	disk := &fakeDisk{u: DiskUsage{UsedPercent: 99, InodesUsedPercent: 99}}
	r := newRunners(live("a"), live("b"), dead("c", 1))
	c := New(Config{MaxAllocs: 1}, r, disk, "/alloc", clocktest.NewFakeClock(), nil)
	if err := c.KeepUnderLimits(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := r.gone(); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("destroyed %v, want only the terminal c", got)
	}
	if err := c.Collect(context.Background(), "a"); !errors.Is(err, ErrNotTerminal) {
		t.Fatalf("collecting a live alloc: %v, want ErrNotTerminal", err)
	}
	if err := c.Collect(context.Background(), "nope"); !errors.Is(err, ErrUnknownAlloc) {
		t.Fatalf("collecting an unknown alloc: %v, want ErrUnknownAlloc", err)
	}
}

func TestKeepUnderLimitsMaxAllocs(t *testing.T) {
	r := newRunners(live("r1"), dead("d2", 2), dead("d1", 1), dead("d3", 3), live("r2"))
	c := New(Config{MaxAllocs: 3}, r, &fakeDisk{}, "/alloc", clocktest.NewFakeClock(), nil)
	if err := c.KeepUnderLimits(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := r.gone()
	sort.Strings(got) // destroyed in parallel
	if want := []string{"d1", "d2"}; !slices.Equal(got, want) {
		t.Fatalf("destroyed %v, want the two oldest %v", got, want)
	}
}

func TestCollectAllBoundsParallelDestroys(t *testing.T) {
	var allocs []Alloc
	for i := range 7 {
		allocs = append(allocs, dead(string(rune('a'+i)), i))
	}
	r := newRunners(append(allocs, live("run"))...)
	r.gate = make(chan struct{})
	c := New(Config{ParallelDestroys: 3}, r, &fakeDisk{}, "/alloc", clocktest.NewFakeClock(), nil)
	done := make(chan int)
	go func() {
		n, err := c.CollectAll(context.Background())
		if err != nil {
			t.Error(err)
		}
		done <- n
	}()
	for range 7 {
		r.gate <- struct{}{}
	}
	if n := <-done; n != 7 {
		t.Fatalf("CollectAll destroyed %d, want 7", n)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.maxFlight > 3 || r.maxFlight < 1 {
		t.Fatalf("%d destroys at once, want at most 3", r.maxFlight)
	}
	if _, ok := r.allocs["run"]; !ok {
		t.Fatal("node gc destroyed the live allocation")
	}
}

func TestRunChecksEveryInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		disk := &fakeDisk{}
		r := newRunners(dead("old", 1), live("run"))
		c := New(Config{Interval: time.Minute}, r, disk, "/alloc", clock.Real{}, nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { c.Run(ctx); close(done) }()

		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if got := r.gone(); len(got) != 0 {
			t.Fatalf("destroyed %v under every limit", got)
		}
		disk.mu.Lock()
		disk.u.UsedPercent = 90
		disk.mu.Unlock()
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := r.gone(); !slices.Equal(got, []string{"old"}) {
			t.Fatalf("destroyed %v after the disk went over, want [old]", got)
		}
		cancel()
		<-done
	})
}

func TestKickRunsAPassAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRunners(dead("d1", 1), dead("d2", 2), live("run"))
		c := New(Config{Interval: time.Hour, MaxAllocs: 2}, r, &fakeDisk{}, "/alloc", clock.Real{}, nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { c.Run(ctx); close(done) }()
		synctest.Wait()
		if got := r.gone(); len(got) != 0 {
			t.Fatalf("destroyed %v before the interval or a kick", got)
		}
		c.Kick()
		synctest.Wait()
		if got := r.gone(); !slices.Equal(got, []string{"d1"}) {
			t.Fatalf("after a kick destroyed %v, want [d1]", got)
		}
		cancel()
		<-done
	})
}
