package gopool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunsEveryFunctionConcurrently: functions that wait on each other all
// run (concurrency is not bounded), and every one runs once.
func TestRunsEveryFunctionConcurrently(t *testing.T) {
	p := New(time.Minute)
	defer p.Close()
	const n = 200
	var ran atomic.Int64
	var wg sync.WaitGroup
	release := make(chan struct{})
	wg.Add(n)
	for range n {
		p.Go(func() {
			defer wg.Done()
			ran.Add(1)
			<-release // all n must be running at once for any to finish
		})
	}
	for ran.Load() < n {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if got := ran.Load(); got != n {
		t.Fatalf("ran %d, want %d", got, n)
	}
}

// TestReusesIdleGoroutines: sequential work runs on the one goroutine the
// first call started, and Close ends it.
func TestReusesIdleGoroutines(t *testing.T) {
	p := New(time.Minute)
	before := runtime.NumGoroutine()
	done := make(chan struct{})
	for range 50 {
		p.Go(func() { done <- struct{}{} })
		<-done
		time.Sleep(time.Millisecond) // the worker parks again, waiting for the next
	}
	if extra := runtime.NumGoroutine() - before; extra > 5 {
		t.Fatalf("%d goroutines for 50 sequential calls, want the first one reused", extra)
	}
	p.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if runtime.NumGoroutine() > before {
		t.Fatalf("idle goroutine still there after Close")
	}
	p.Go(func() { done <- struct{}{} }) // after Close: still runs
	<-done
}

// TestIdleGoroutinesExit: a goroutine with no work for the idle time exits.
func TestIdleGoroutinesExit(t *testing.T) {
	p := New(10 * time.Millisecond)
	defer p.Close()
	before := runtime.NumGoroutine()
	done := make(chan struct{})
	p.Go(func() { close(done) })
	<-done
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if runtime.NumGoroutine() > before {
		t.Fatalf("idle goroutine did not exit")
	}
}
