package base

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// Every samples at once and then every interval; the stream ends when the
// task exits, and its source is closed.
func TestStreamUsageEveryUntilExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		exit := NewExit()
		n := 0
		sample := func(now time.Time) *TaskResourceUsage { n++; return &TaskResourceUsage{Timestamp: now, Pids: n} }
		ch, err := StreamUsage(context.Background(), exit.Done(), Every(time.Second, sample))
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 3; i++ {
			u := <-ch
			if u.Pids != i || u.Timestamp.Sub(start) != time.Duration(i-1)*time.Second {
				t.Fatalf("sample %d: pids %d at %v", i, u.Pids, u.Timestamp.Sub(start))
			}
		}
		exit.Set(&ExitResult{})
		synctest.Wait()
		if _, ok := <-ch; ok {
			t.Fatal("stream still open after the task exited")
		}
	})
}

// The stream ends with the caller's context; a source's close runs.
func TestStreamUsageUntilCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		closed := false
		src := func(ctx context.Context) (func() (*TaskResourceUsage, bool), func(), error) {
			next := func() (*TaskResourceUsage, bool) {
				<-ctx.Done() // a stream bound to ctx, as docker's
				return nil, false
			}
			return next, func() { closed = true }, nil
		}
		ch, err := StreamUsage(ctx, make(chan struct{}), src)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, ok := <-ch; ok {
			t.Fatal("stream sent after ctx ended")
		}
		if !closed {
			t.Fatal("source not closed")
		}
	})
}

// A blocked source is released when the task exits; an open error is
// TaskStats's error.
func TestStreamUsageExitReleasesSourceAndOpenError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		exit := NewExit()
		src := func(ctx context.Context) (func() (*TaskResourceUsage, bool), func(), error) {
			return func() (*TaskResourceUsage, bool) { <-ctx.Done(); return nil, false }, nil, nil
		}
		ch, _ := StreamUsage(context.Background(), exit.Done(), src)
		exit.Set(&ExitResult{})
		if _, ok := <-ch; ok {
			t.Fatal("stream sent after exit")
		}
	})
	boom := errors.New("no stats")
	_, err := StreamUsage(context.Background(), nil, func(context.Context) (func() (*TaskResourceUsage, bool), func(), error) {
		return nil, nil, boom
	})
	if err != boom {
		t.Fatalf("open error: %v", err)
	}
}
