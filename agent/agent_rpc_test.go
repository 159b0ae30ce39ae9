package agent

import (
	"errors"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestLazyRPCWaitsForServer(t *testing.T) {
	l := newLazyRPC()
	l.set(nil, errors.New("boom"))
	if err := l.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, new(string)); err == nil {
		t.Fatal("a failed server start must fail the waiting calls")
	}
}
