package rpcclient_test

import (
	"context"
	"errors"
	"net"
	"net/rpc"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/server"
	"github.com/nomadish/nomadish/structs"
)

func startServer(t *testing.T) *server.Server {
	t.Helper()
	s, err := server.NewServer(&server.Config{DevMode: true, RPCAddr: "127.0.0.1:0", NumSchedulers: 1, Logger: hclog.NewNullLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitForLeader(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// deadAddr returns an address nothing listens on.
func deadAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestClientAgainstRealListener(t *testing.T) {
	s := startServer(t)
	// The first server is down: the client fails over to the second.
	c := rpcclient.New([]string{deadAddr(t), s.RPCAddr()}, nil)
	defer c.Close()

	job := &structs.Job{ID: "web", TaskGroups: []*structs.TaskGroup{{Name: "g", Tasks: []*structs.Task{{
		Name: "t", Driver: "raw_exec", Config: map[string]any{"command": "/bin/true", "args": []any{"-x"}}}}}}}
	var reg structs.JobRegisterResponse
	if err := c.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &reg); err != nil {
		t.Fatalf("Job.Register over TCP: %v", err)
	}
	if reg.EvalID == "" || reg.Index == 0 {
		t.Fatalf("reply: %+v", reg)
	}
	var got structs.SingleJobResponse
	if err := c.RPC(structs.JobGetJobRPC, &structs.JobSpecificRequest{JobID: "web"}, &got); err != nil || got.Job == nil {
		t.Fatalf("Job.GetJob: %v %v", got.Job, err)
	}
	if got.Job.TaskGroups[0].Tasks[0].Config["command"] != "/bin/true" {
		t.Fatalf("config round trip: %#v", got.Job.TaskGroups[0].Tasks[0].Config)
	}
	var leader string
	if err := c.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil || leader == "" {
		t.Fatalf("Status.Leader: %q %v", leader, err)
	}

	// Coded errors are rebuilt on this side.
	var dereg structs.JobDeregisterResponse
	err := c.RPC(structs.JobDeregisterRPC, &structs.JobDeregisterRequest{JobID: "nope"}, &dereg)
	if code, msg := structs.ErrorCode(err); code != structs.ErrCodeNotFound || msg != "job not found" {
		t.Fatalf("want 404 job not found, got %v", err)
	}

	// Concurrent calls share the connection.
	errs := make(chan error, 10)
	for i := 0; i < 10; i++ {
		go func() {
			var l structs.JobListResponse
			errs <- c.RPC(structs.JobListRPC, &structs.JobListRequest{}, &l)
		}()
	}
	for i := 0; i < 10; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func TestClientClosedAndUnreachable(t *testing.T) {
	s := startServer(t)
	c := rpcclient.New([]string{s.RPCAddr()}, nil)
	var leader string
	if err := c.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := c.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); !errors.Is(err, rpcclient.ErrClosed) {
		t.Fatalf("closed client: %v", err)
	}
	none := rpcclient.New(nil, nil)
	if err := none.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); !errors.Is(err, rpcclient.ErrNoServers) {
		t.Fatalf("no servers: %v", err)
	}
	dead := rpcclient.New([]string{deadAddr(t)}, nil)
	if err := dead.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err == nil {
		t.Fatal("dead server: want an error")
	}
}

func TestClientFailsOverWhenConnectionBreaks(t *testing.T) {
	a, b := startServer(t), startServer(t)
	c := rpcclient.New([]string{a.RPCAddr(), b.RPCAddr()}, nil)
	defer c.Close()
	var leader string
	if err := c.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil {
		t.Fatal(err)
	}
	first := leader
	if err := a.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if err := c.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil {
		t.Fatalf("after the first server went away: %v", err)
	}
	if leader == first {
		t.Fatalf("still answered by the stopped server %q", first)
	}
}

func TestClientRedialsSingleServer(t *testing.T) {
	s := startServer(t)
	c := rpcclient.New([]string{s.RPCAddr()}, nil)
	defer c.Close()
	var leader string
	if err := c.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil {
		t.Fatal(err)
	}
	// Break the connection from the server side by restarting a server on
	// the same address.
	addr := s.RPCAddr()
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	s2, err := server.NewServer(&server.Config{DevMode: true, RPCAddr: addr, NumSchedulers: 1, Logger: hclog.NewNullLogger()})
	if err != nil {
		t.Fatalf("restarting on %s: %v", addr, err)
	}
	defer s2.Shutdown()
	if err := c.RPC(structs.StatusPeersRPC, &structs.GenericRequest{}, &[]string{}); err != nil {
		t.Fatalf("after the server restarted: %v", err)
	}
}

// TestLegacyProtocolStillServed: a caller of the protocol before the pool
// (first byte RPCNomad, one net/rpc conversation) is still answered.
func TestLegacyProtocolStillServed(t *testing.T) {
	s := startServer(t)
	conn, err := rpcclient.Dial(s.RPCAddr(), rpcclient.RPCNomad, nil, rpcclient.DialTimeout)
	if err != nil {
		t.Fatal(err)
	}
	c := rpc.NewClientWithCodec(rpcclient.NewCodec(conn))
	defer c.Close()
	var leader string
	if err := c.Call(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil || leader == "" {
		t.Fatalf("Status.Leader over RPCNomad: %q %v", leader, err)
	}
}
