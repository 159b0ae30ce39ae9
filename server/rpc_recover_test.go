package server

import (
	"bytes"
	"net"
	"net/rpc"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

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
	nilGroup := mockJob("nilgroup")
	nilGroup.TaskGroups = append(nilGroup.TaskGroups, nil)
	nilTask := mockJob("niltask")
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

// panicEndpoint is a test endpoint whose Boom method panics.
type panicEndpoint struct{}

func (panicEndpoint) Boom(args *string, reply *string) error { panic("boom: " + *args) }
func (panicEndpoint) Echo(args *string, reply *string) error { *reply = *args; return nil }

// bareServer is a Server with only what serveRPCCodec and localRPC need,
// and the Status.Boom/Status.Echo test methods (Status.* is answered
// locally, without a leader).
func bareServer(logs *lockedBuffer) *Server {
	s := &Server{logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug}), methods: map[string]rpcMethod{}}
	v := reflect.ValueOf(panicEndpoint{})
	for _, name := range []string{"Boom", "Echo"} {
		m, _ := v.Type().MethodByName(name)
		s.methods["Status."+name] = rpcMethod{fn: v.MethodByName(name), argType: m.Type.In(1), replyType: m.Type.In(2)}
	}
	return s
}

// TestRPCPanicAnsweredAsError: a panicking endpoint answers the caller with
// a 500 coded error naming the method, is logged with the method and its
// stack, and the conversation (and process) goes on.
func TestRPCPanicAnsweredAsError(t *testing.T) {
	logs := &lockedBuffer{}
	s := bareServer(logs)
	srvConn, cliConn := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.serveRPCCodec(newServerCodec(srvConn))
	}()
	c := rpc.NewClientWithCodec(rpcclient.NewCodec(cliConn))
	for i := 0; i < 3; i++ {
		in, out := "x", ""
		err := c.Call("Status.Boom", &in, &out)
		code, msg := structs.ErrorCode(structs.DecodeRPCError(errString(err)))
		if code != structs.ErrCodeInternal || !strings.Contains(msg, "internal error in Status.Boom") {
			t.Fatalf("call %d: got %v, want a 500 naming the method", i, err)
		}
		if err := c.Call("Status.Echo", &in, &out); err != nil || out != "x" {
			t.Fatalf("after the panic: %q %v", out, err)
		}
	}
	c.Close()
	<-done
	log := logs.String()
	for _, want := range []string{"RPC handler panicked", "method=Status.Boom", "boom: x", "panicEndpoint.Boom"} {
		if !strings.Contains(log, want) {
			t.Fatalf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestLocalRPCPanicAndNil: the in-process path (HTTP API, in-process
// client) gets the same answers as TCP callers.
func TestLocalRPCPanicAndNil(t *testing.T) {
	s := bareServer(&lockedBuffer{})
	in, out := "y", ""
	if code, _ := structs.ErrorCode(s.localRPC("Status.Boom", &in, &out)); code != structs.ErrCodeInternal {
		t.Fatalf("panic: code %d", code)
	}
	s2 := tcpRPCServer(t)
	err := s2.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: &structs.Job{ID: "x", TaskGroups: []*structs.TaskGroup{nil}}}, &structs.JobRegisterResponse{})
	if code, msg := structs.ErrorCode(err); code != structs.ErrCodeBadRequest || !strings.Contains(msg, "TaskGroups[0] is null") {
		t.Fatalf("nil group in process: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
