package server

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// stacksWith counts the goroutines whose stack mentions fn.
func stacksWith(fn string) int {
	buf := make([]byte, 8<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

// waitStacks yields until n goroutines are in fn (they block there; no
// timing is asserted, the deadline only ends a broken run).
func waitStacks(t *testing.T, fn string, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); stacksWith(fn) < n; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines in %s, want %d", stacksWith(fn), fn, n)
		}
	}
}

// Blocking list queries over many jobs wait on their tables' index rows:
// no per-object channels (memdb would start a goroutine per 32 of them),
// and the answer is not built while they wait; each answers once a job is
// registered, with the new job in it.
func TestBlockingListsCostAConstant(t *testing.T) {
	s := testServer(t, nil)
	const jobs, waiters = 200, 20
	for i := range jobs {
		j := structstest.Job(fmt.Sprintf("job-%03d", i))
		j.Datacenters = []string{"nowhere"}
		if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: j}, &structs.JobRegisterResponse{}); err != nil {
			t.Fatal(err)
		}
	}
	// Wait for the scheduler to be done with them: a short blocking query
	// that times out at the same index saw nothing change.
	var first structs.JobListResponse
	for index := uint64(0); first.Index == 0 || first.Index != index; {
		index = first.Index
		req := &structs.JobListRequest{QueryOptions: structs.QueryOptions{MinQueryIndex: index, MaxQueryTime: 300 * time.Millisecond}}
		if err := s.RPC(structs.JobListRPC, req, &first); err != nil || len(first.Jobs) != jobs {
			t.Fatalf("list: %d jobs, %v", len(first.Jobs), err)
		}
	}
	before := stacksWith("watchMany")
	type answer struct {
		r   structs.JobListResponse
		err error
	}
	answers := make(chan answer, waiters)
	for range waiters {
		go func() {
			var r structs.JobListResponse
			req := &structs.JobListRequest{QueryOptions: structs.QueryOptions{MinQueryIndex: first.Index, MaxQueryTime: time.Minute}}
			err := s.RPC(structs.JobListRPC, req, &r)
			answers <- answer{r, err}
		}()
	}
	waitStacks(t, "endpoints.(*Deps).waitQuery", waiters)
	if got := stacksWith("watchMany") - before; got > 0 {
		t.Fatalf("%d watchMany goroutines for %d waiters on %d jobs: per-object channels", got, waiters, jobs)
	}
	if got := stacksWith("JobSummary"); got > 0 {
		t.Fatalf("%d waiters building their answer while blocked", got)
	}
	var reg structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("wake")}, &reg); err != nil {
		t.Fatal(err)
	}
	for range waiters {
		a := <-answers
		if a.err != nil || a.r.Index <= first.Index || len(a.r.Jobs) != jobs+1 {
			t.Fatalf("answer: index %d (was %d), %d jobs, %v", a.r.Index, first.Index, len(a.r.Jobs), a.err)
		}
	}
}
