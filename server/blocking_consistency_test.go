package server

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestBlockingListMatchesItsIndex registers jobs while blocking Job.List
// queries follow them, and checks every answer against its index: it holds
// exactly the jobs registered at or below that index. (Reading the live
// store twice, once for the list and once for the index, could answer an
// empty list with the index of the write that filled it.)
func TestBlockingListMatchesItsIndex(t *testing.T) {
	s := testServer(t, nil)
	const n = 40
	var mu sync.Mutex
	registered := map[string]uint64{} // job ID -> JobModifyIndex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < n; i++ {
			var r structs.JobRegisterResponse
			id := fmt.Sprintf("j%02d", i)
			if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job(id)}, &r); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			registered[id] = r.JobModifyIndex
			mu.Unlock()
		}
	}()
	var answers []structs.JobListResponse
	var index uint64
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		var r structs.JobListResponse
		req := &structs.JobListRequest{QueryOptions: structs.QueryOptions{MinQueryIndex: index, MaxQueryTime: 100 * time.Millisecond}}
		if err := s.RPC(structs.JobListRPC, req, &r); err != nil {
			t.Fatal(err)
		}
		answers = append(answers, r)
		index = r.Index
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range answers {
		want := 0
		for _, idx := range registered {
			if idx <= a.Index {
				want++
			}
		}
		if len(a.Jobs) != want {
			t.Fatalf("answer at index %d lists %d jobs, want %d", a.Index, len(a.Jobs), want)
		}
	}
	if len(answers) < 2 {
		t.Fatalf("only %d answers: the blocking queries did not follow the writes", len(answers))
	}
}
