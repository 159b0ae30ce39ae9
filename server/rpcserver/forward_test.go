package rpcserver

import (
	"errors"
	"net"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestKindOf(t *testing.T) {
	cases := []struct {
		method string
		args   any
		kind   rpcKind
		stale  bool
	}{
		{"Status.Leader", &structs.GenericRequest{}, kindLocal, false},
		{"Job.Register", &structs.JobRegisterRequest{}, kindWrite, false},
		{"Job.List", &structs.JobListRequest{}, kindRead, false},
		{"Job.List", &structs.JobListRequest{QueryOptions: structs.QueryOptions{AllowStale: true}}, kindRead, true},
		// By value (no promoted pointer methods): the reflection path.
		{"Job.List", structs.JobListRequest{QueryOptions: structs.QueryOptions{AllowStale: true}}, kindRead, true},
		{"Job.List", structs.JobListRequest{}, kindRead, false},
		{"Job.Register", structs.JobRegisterRequest{}, kindWrite, false},
	}
	for _, c := range cases {
		kind, stale := kindOf(c.method, c.args)
		if kind != c.kind || stale != c.stale {
			t.Errorf("kindOf(%s, %T) = %v, %v; want %v, %v", c.method, c.args, kind, stale, c.kind, c.stale)
		}
	}
}

func TestRetryForward(t *testing.T) {
	dial := &net.OpError{Op: "dial", Err: errors.New("refused")}
	read := &net.OpError{Op: "read", Err: errors.New("reset")}
	cases := []struct {
		kind rpcKind
		err  error
		want bool
	}{
		{kindWrite, structs.ErrNoLeader, true},
		{kindWrite, structs.ErrJobNotFound, false},
		{kindWrite, dial, true},
		{kindWrite, read, false}, // the write may have happened
		{kindRead, read, true},
		{kindRead, structs.ErrJobNotFound, false},
	}
	for _, c := range cases {
		if got := retryForward(c.kind, c.err); got != c.want {
			t.Errorf("retryForward(%v, %v) = %v, want %v", c.kind, c.err, got, c.want)
		}
	}
}
