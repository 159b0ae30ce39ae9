package agent

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/nomadish/nomadish/structs"
)

// fakeRPC answers RPCs with the handler registered for the method and
// records every call. An unregistered method is an error.
type fakeRPC struct {
	mu       sync.Mutex
	handlers map[string]func(args, reply any) error
	calls    []rpcCall
}

type rpcCall struct {
	Method string
	Args   any
}

var _ RPCer = (*fakeRPC)(nil)

// newFakeRPC answers ACL.AllowAllocOperation as a server with ACLs off
// does (allowed); tests of denials register their own handler.
func newFakeRPC() *fakeRPC {
	return &fakeRPC{handlers: map[string]func(args, reply any) error{
		structs.ACLAllowAllocOperationRPC: func(any, any) error { return nil },
	}}
}

func (f *fakeRPC) on(method string, h func(args, reply any) error) *fakeRPC {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[method] = h
	return f
}

func (f *fakeRPC) RPC(method string, args, reply any) error {
	f.mu.Lock()
	f.calls = append(f.calls, rpcCall{method, args})
	h := f.handlers[method]
	f.mu.Unlock()
	if h == nil {
		return fmt.Errorf("fake: no handler for %s", method)
	}
	return h(args, reply)
}

func (f *fakeRPC) callsTo(method string) []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []any
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c.Args)
		}
	}
	return out
}

func (f *fakeRPC) numCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// fakeLogs is a LogSource whose Logs writes chunks, or fails with err.
type fakeLogs struct {
	nodeID string
	chunks []string
	err    error // returned after the chunks are written
	got    []any // the last call's parameters
}

var _ LogSource = (*fakeLogs)(nil)

func (f *fakeLogs) NodeID() string { return f.nodeID }

func (f *fakeLogs) Logs(ctx context.Context, allocID, task, logType, origin string, offset int64, follow bool, w io.Writer) error {
	f.got = []any{allocID, task, logType, origin, offset, follow}
	for _, c := range f.chunks {
		if _, err := io.WriteString(w, c); err != nil {
			return err
		}
	}
	return f.err
}

// testJob is a small valid batch job.
func testJob(id string) *structs.Job {
	return &structs.Job{
		ID: id, Type: structs.JobTypeBatch, Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{
			Name: "g", Count: 1,
			Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec", Config: map[string]any{"command": "/bin/true"}}},
		}},
	}
}
