package rpcserver

import (
	"net"
	"net/rpc"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

// panicEndpoint is a test endpoint whose Boom method panics.
type panicEndpoint struct{}

func (panicEndpoint) Boom(args *string, reply *string) error { panic("boom: " + *args) }
func (panicEndpoint) Echo(args *string, reply *string) error { *reply = *args; return nil }

// bareServer is a transport without listener or leadership, serving the
// Status.Boom/Status.Echo test methods (Status.* is answered locally,
// without a leader).
func bareServer(t *testing.T, logs *lockedBuffer) *Server {
	s := New(Config{Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})})
	if err := s.Register("Status", panicEndpoint{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRPCPanicAnsweredAsError: a panicking endpoint answers the caller with
// a 500 coded error naming the method, is logged with the method and its
// stack, and the conversation (and process) goes on.
func TestRPCPanicAnsweredAsError(t *testing.T) {
	logs := &lockedBuffer{}
	s := bareServer(t, logs)
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
	s := bareServer(t, &lockedBuffer{})
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
