package agent

import (
	"errors"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// blockingFake blocks blocking queries until release is closed.
type blockingFake struct {
	release chan struct{}
	entered chan struct{}
}

func (b *blockingFake) RPC(method string, args, reply any) error {
	if blockingQuery(args) {
		b.entered <- struct{}{}
		<-b.release
	}
	return nil
}

func TestStoppableRPCEndsBlockingQueries(t *testing.T) {
	fake := &blockingFake{release: make(chan struct{}), entered: make(chan struct{}, 1)}
	defer close(fake.release)
	s := newStoppableRPC(fake)

	blocking := &structs.NodeSpecificRequest{QueryOptions: structs.QueryOptions{MinQueryIndex: 5}}
	errc := make(chan error, 1)
	go func() { errc <- s.RPC(structs.NodeGetClientAllocsRPC, blocking, &structs.NodeClientAllocsResponse{}) }()
	<-fake.entered
	s.stop()
	if err := <-errc; !errors.Is(err, errStopping) {
		t.Fatalf("blocking query in flight: err = %v, want errStopping", err)
	}
	if err := s.RPC(structs.NodeGetClientAllocsRPC, blocking, &structs.NodeClientAllocsResponse{}); !errors.Is(err, errStopping) {
		t.Fatalf("new blocking query: err = %v, want errStopping", err)
	}
	write := &structs.AllocUpdateRequest{}
	if err := s.RPC(structs.NodeUpdateAllocRPC, write, &structs.GenericResponse{}); err != nil {
		t.Fatalf("a write after stop must still pass: %v", err)
	}
	nonBlocking := &structs.NodeSpecificRequest{}
	if err := s.RPC(structs.NodeGetClientAllocsRPC, nonBlocking, &structs.NodeClientAllocsResponse{}); err != nil {
		t.Fatalf("a non-blocking read after stop must still pass: %v", err)
	}
}

func TestBlockingQuery(t *testing.T) {
	for _, tc := range []struct {
		args any
		want bool
	}{
		{&structs.JobListRequest{QueryOptions: structs.QueryOptions{MinQueryIndex: 1}}, true},
		{&structs.JobListRequest{}, false},
		{&structs.JobRegisterRequest{}, false},
		{new(string), false},
		{nil, false},
	} {
		if got := blockingQuery(tc.args); got != tc.want {
			t.Errorf("blockingQuery(%T) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

func TestLazyRPCWaitsForServer(t *testing.T) {
	l := newLazyRPC()
	l.set(nil, errors.New("boom"))
	if err := l.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, new(string)); err == nil {
		t.Fatal("a failed server start must fail the waiting calls")
	}
}
