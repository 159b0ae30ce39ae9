package client_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"slices"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/structs"
)

func TestRetryable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{structs.ErrNoLeader, true},
		{fmt.Errorf("rpcclient: Node.UpdateStatus: no server reachable: %w", fmt.Errorf("dialing x: %w", refused)), true},
		{io.EOF, true},
		{rpc.ErrShutdown, true},
		{syscall.ECONNRESET, true},
		{structs.ErrNodeNotFound, false},
		{structs.NewCodedError(structs.ErrCodeBadRequest, "bad"), false},
		{errors.New("some endpoint error"), false},
	}
	for _, c := range cases {
		if got := client.Retryable(c.err); got != c.want {
			t.Errorf("Retryable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// fronts is a Dialer over named fronts of one FakeServer.
type fronts map[string]*clienttest.Front

func (f fronts) dial(addr string) client.RPCer { return f[addr] }

func TestServerManagerFailsOverAndLearns(t *testing.T) {
	srv := clienttest.NewFakeServer()
	defer srv.Close()
	fr := fronts{"s1": clienttest.NewFront(srv), "s2": clienttest.NewFront(srv), "s3": clienttest.NewFront(srv)}
	m := client.NewServerManager([]string{"s1", "s1", ""}, fr.dial, nil)
	if got := m.Servers(); !slices.Equal(got, []string{"s1"}) {
		t.Fatalf("configured servers %v", got)
	}
	m.SetServers([]string{"s2", "s1", "s3"})
	if got := m.Servers(); !slices.Equal(got, []string{"s1", "s2", "s3"}) {
		t.Fatalf("after learning: %v", got)
	}
	node := &structs.Node{ID: "n1", SecretID: "sec", Name: "n1"}
	var resp structs.NodeUpdateResponse
	fr["s1"].SetDown(true)
	if err := m.RPC(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: node}, &resp); err != nil {
		t.Fatalf("register with s1 down: %v", err)
	}
	if got := m.Servers(); !slices.Equal(got, []string{"s2", "s3", "s1"}) {
		t.Fatalf("s1 not demoted: %v", got)
	}
	// An endpoint's error is not retried on another server.
	before := fr["s3"].Calls()
	err := m.RPC(structs.NodeUpdateStatusRPC, &structs.NodeUpdateStatusRequest{NodeID: "nope"}, &resp)
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeNotFound || fr["s3"].Calls() != before {
		t.Fatalf("404 answer: %v, s3 calls %d -> %d", err, before, fr["s3"].Calls())
	}
	// A server with no leader is retryable.
	srv.FailNext(structs.NodeUpdateStatusRPC, structs.ErrNoLeader)
	req := &structs.NodeUpdateStatusRequest{NodeID: "n1", SecretID: "sec", Status: structs.NodeStatusReady}
	if err := m.RPC(structs.NodeUpdateStatusRPC, req, &resp); err != nil || fr["s3"].Calls() != before+1 {
		t.Fatalf("no-leader failover: %v (s3 calls %d)", err, fr["s3"].Calls())
	}
	// Every server down: an error wrapping the last one's.
	for _, f := range fr {
		f.SetDown(true)
	}
	err = m.RPC(structs.NodeUpdateStatusRPC, req, &resp)
	if !client.Retryable(err) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("all down: %v", err)
	}
	// A learned server no longer listed is dropped; configured ones stay.
	m.SetServers([]string{"s3"})
	if got := m.Servers(); len(got) != 2 || !slices.Contains(got, "s1") || !slices.Contains(got, "s3") {
		t.Fatalf("after s2 left: %v", got)
	}
}

// TestClientFailsOverWithoutRestartingTasks runs a client configured with
// one server that learns a second from its heartbeat replies; when the
// first goes down (its in-flight alloc watch fails too), heartbeats and the
// alloc watch carry on through the second, and the running task is neither
// restarted nor stopped; a later alloc change still reaches the client.
func TestClientFailsOverWithoutRestartingTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		srv.Servers = []string{"s1", "s2"}
		fr := fronts{"s1": clienttest.NewFront(srv), "s2": clienttest.NewFront(srv)}
		m := client.NewServerManager([]string{"s1"}, fr.dial, nil)
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		c := newClient(t, srv, l, t.TempDir(), m)
		defer c.Shutdown()
		synctest.Wait()
		a := batchAlloc(c.NodeID(), "a1", map[string]any{"run_for": "1h"}, structs.JobTypeService)
		srv.AddAlloc(a)
		settle()
		if got := srv.Alloc("a1").ClientStatus; got != structs.AllocClientStatusRunning {
			t.Fatalf("alloc status %s", got)
		}
		if got := m.Servers(); !slices.Equal(got, []string{"s1", "s2"}) {
			t.Fatalf("servers learned: %v", got)
		}
		fr["s1"].SetDown(true)
		_, hbBefore := srv.Counts()
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if _, hbs := srv.Counts(); hbs < hbBefore+5 || fr["s2"].Calls() == 0 {
			t.Fatalf("heartbeats %d -> %d, s2 calls %d", hbBefore, hbs, fr["s2"].Calls())
		}
		if started := len(l.drv.Started()); started != 1 {
			t.Fatalf("task started %d times across the failover", started)
		}
		if srv.Alloc("a1").ClientStatus != structs.AllocClientStatusRunning || len(l.drv.Running()) != 1 {
			t.Fatalf("alloc %s, running %v", srv.Alloc("a1").ClientStatus, l.drv.Running())
		}
		srv.StopAlloc("a1")
		settle()
		if got := srv.Alloc("a1").ClientStatus; got != structs.AllocClientStatusComplete || len(l.drv.Running()) != 0 {
			t.Fatalf("stop through s2: alloc %s, running %v", got, l.drv.Running())
		}
	})
}

// TestClientResendsAllocsAfterHeartbeatGap: while the client cannot
// heartbeat, the servers mark its running alloc unknown; once a heartbeat
// goes through again the client resends the alloc's state (running), and
// the task was never restarted.
func TestClientResendsAllocsAfterHeartbeatGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		c := newClient(t, srv, l, t.TempDir())
		defer c.Shutdown()
		synctest.Wait()
		srv.AddAlloc(batchAlloc(c.NodeID(), "a1", map[string]any{"run_for": "1h"}, structs.JobTypeService))
		settle()
		srv.FailNext(structs.NodeUpdateStatusRPC, structs.ErrNoLeader)
		srv.MarkUnknown("a1")
		time.Sleep(6 * time.Second) // one heartbeat fails, the retry succeeds
		synctest.Wait()
		if got := srv.Alloc("a1").ClientStatus; got != structs.AllocClientStatusRunning {
			t.Fatalf("alloc status after the gap: %s", got)
		}
		if n := len(l.drv.Started()); n != 1 {
			t.Fatalf("task started %d times", n)
		}
	})
}

// TestServerManagerTimeoutSkipsHungServer: with RPCTimeout, a server that
// never answers is left after the timeout for the next one, and the late
// answer does not touch the caller's reply.
func TestServerManagerTimeoutSkipsHungServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		srv.HeartbeatTTL = 7 * time.Second
		fr := fronts{"s1": clienttest.NewFront(srv), "s2": clienttest.NewFront(srv)}
		m := client.NewServerManager([]string{"s1", "s2"}, fr.dial, nil)
		fr["s1"].SetHung(true)
		start := time.Now()
		var resp structs.NodeUpdateResponse
		err := m.RPCTimeout(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: &structs.Node{ID: "n1", SecretID: "s"}}, &resp, time.Second)
		if err != nil || resp.HeartbeatTTL != 7*time.Second || time.Since(start) != time.Second {
			t.Fatalf("register: %v, TTL %v after %v", err, resp.HeartbeatTTL, time.Since(start))
		}
		if got := m.Servers(); !slices.Equal(got, []string{"s2", "s1"}) {
			t.Fatalf("hung s1 not demoted: %v", got)
		}
		resp.HeartbeatTTL = 0
		fr["s1"].SetHung(false) // the abandoned call answers now
		synctest.Wait()
		if resp.HeartbeatTTL != 0 {
			t.Fatalf("late answer written into the caller's reply")
		}
	})
}
