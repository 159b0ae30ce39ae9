package server

import (
	"errors"
	"net/rpc"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// The server's RPC port end to end, over its real endpoints and state (the
// transport's own tests are in server/rpcserver).

// tcpRPCServer starts a dev server listening on a real RPC port.
func tcpRPCServer(t *testing.T) *Server {
	return testServer(t, func(c *Config) { c.RPCAddr = "127.0.0.1:0" })
}

// legacyClient opens one net/rpc msgpack conversation (the RPCNomad
// protocol) to s, the way any program with network access can.
func legacyClient(t *testing.T, s *Server) *rpc.Client {
	t.Helper()
	conn, err := rpcclient.Dial(s.RPCAddr(), rpcclient.RPCNomad, nil, rpcclient.DialTimeout)
	if err != nil {
		t.Fatal(err)
	}
	c := rpc.NewClientWithCodec(rpcclient.NewCodec(conn))
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRPCNilMembersOverTCP is the finding: Job.Register with a nil
// task group and Node.UpdateAlloc with a nil alloc, sent over TCP by both
// wire protocols, get a 400 naming the member, change nothing, and the
// server keeps answering on the same connection.
func TestRPCNilMembersOverTCP(t *testing.T) {
	s := tcpRPCServer(t)
	before, _ := s.State().LatestIndex(nil)
	nilGroup := structstest.Job("nilgroup")
	nilGroup.TaskGroups = append(nilGroup.TaskGroups, nil)
	nilTask := structstest.Job("niltask")
	nilTask.TaskGroups[0].Tasks = []*structs.Task{nil}
	calls := []struct {
		method string
		args   any
		reply  any
		names  string
	}{
		{structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: nilGroup}, &structs.JobRegisterResponse{}, "Job.TaskGroups[1] is null"},
		{structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: &structs.Job{ID: "x", TaskGroups: []*structs.TaskGroup{nil}}}, &structs.JobRegisterResponse{}, "Job.TaskGroups[0] is null"},
		{structs.JobPlanRPC, &structs.JobPlanRequest{Job: nilTask}, &structs.JobPlanResponse{}, "Job.TaskGroups[0].Tasks[0] is null"},
		{structs.NodeUpdateAllocRPC, &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{nil}}, &structs.GenericResponse{}, "Alloc[0] is null"},
		{structs.NodeUpdateAllocRPC, &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{{ID: "a"}, nil}}, &structs.GenericResponse{}, "Alloc[1] is null"},
	}
	legacy := legacyClient(t, s)
	pool := rpcclient.NewPool(nil, hclog.NewNullLogger())
	t.Cleanup(func() { pool.Close() })
	for _, c := range calls {
		for proto, call := range map[string]func() error{
			"RPCNomad":     func() error { return legacy.Call(c.method, c.args, c.reply) },
			"RPCMultiplex": func() error { return pool.RPC(s.RPCAddr(), c.method, c.args, c.reply) },
		} {
			err := call()
			if err == nil {
				t.Fatalf("%s %s: accepted", proto, c.method)
			}
			code, msg := structs.ErrorCode(structs.DecodeRPCError(err.Error()))
			if code != structs.ErrCodeBadRequest || !strings.Contains(msg, c.names) {
				t.Fatalf("%s %s: got %v, want a 400 naming %q", proto, c.method, err, c.names)
			}
		}
	}
	var leader string
	if err := legacy.Call(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil || leader == "" {
		t.Fatalf("the connection no longer answers: %q %v", leader, err)
	}
	if after, _ := s.State().LatestIndex(nil); after != before {
		t.Fatalf("state changed: index %d -> %d", before, after)
	}
}

// Operator.SnapshotRestore's endpoint restores one archive at a time: while
// another is being applied, a restore gets the 429 coded error. (The
// transport's gate, one restore body read at a time, and the larger byte
// budget are tested in server/rpcserver: TestRPCSnapshotRestoreBodyGate.)
func TestRPCSnapshotRestoreGates(t *testing.T) {
	s := tcpRPCServer(t)
	pool := rpcclient.NewPool(nil, hclog.NewNullLogger())
	t.Cleanup(func() { pool.Close() })
	restore := func(size int) error {
		args := structs.SnapshotRestoreRequest{Archive: make([]byte, size)}
		return pool.RPC(s.RPCAddr(), structs.OperatorSnapshotRestoreRPC, &args, &structs.SnapshotRestoreResponse{})
	}
	wantCode := func(what string, err error, code int) {
		t.Helper()
		var ce *structs.CodedError
		if !errors.As(err, &ce) || ce.Code != code {
			t.Fatalf("%s: %v, want a %d coded error", what, err, code)
		}
	}
	wantCode("a 20 MiB archive", restore(20<<20), structs.ErrCodeBadRequest)

	s.restoring.Store(true) // another restore is being applied
	wantCode("while another is applied", restore(1024), structs.ErrCodeTooManyRequests)
	s.restoring.Store(false)
	wantCode("after both", restore(1024), structs.ErrCodeBadRequest)
}

// TestLocalRPCNilMember: the in-process path (HTTP API, in-process client)
// gets the same 400 as TCP callers for a nil member.
func TestLocalRPCNilMember(t *testing.T) {
	s2 := tcpRPCServer(t)
	err := s2.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: &structs.Job{ID: "x", TaskGroups: []*structs.TaskGroup{nil}}}, &structs.JobRegisterResponse{})
	if code, msg := structs.ErrorCode(err); code != structs.ErrCodeBadRequest || !strings.Contains(msg, "TaskGroups[0] is null") {
		t.Fatalf("nil group in process: %v", err)
	}
}
