package cluster

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// countFSM counts applied entries and answers each with its index.
type countFSM struct{ applied int }

func (f *countFSM) Apply(l *raft.Log) any               { f.applied++; return l.Index }
func (f *countFSM) Snapshot() (raft.FSMSnapshot, error) { return nil, errors.New("no snapshots") }
func (f *countFSM) Restore(r io.ReadCloser) error       { return r.Close() }

// TestDevClusterAlone: a dev cluster bootstraps itself, leads, applies
// entries, lists itself as the only member and server, and answers the
// gossip operations with ErrNoSerf (it gossips with no one).
func TestDevClusterAlone(t *testing.T) {
	notify := make(chan bool, 10)
	fsm := &countFSM{}
	c, err := New(Config{Region: "global", Datacenter: "dc1", NodeName: "s1", DevMode: true, BootstrapExpect: 1,
		Advertise: "127.0.0.1:4647", FSM: fsm, LeaderNotify: notify})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	if err := c.StartGossip(); err != nil {
		t.Fatal(err)
	}
	select {
	case lead := <-notify:
		if !lead {
			t.Fatal("first leadership notification is a loss")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no leadership in 10s")
	}
	if !c.IsLeader() || c.Leader() != "127.0.0.1:4647" || c.LastContact() != 0 || c.ServerID() == "" {
		t.Fatalf("leader %v %q, last contact %s, id %q", c.IsLeader(), c.Leader(), c.LastContact(), c.ServerID())
	}
	idx, resp, err := c.Apply([]byte{0}, time.Second)
	if err != nil || resp != idx || fsm.applied != 1 {
		t.Fatalf("apply: index %d resp %v err %v applied %d", idx, resp, err, fsm.applied)
	}
	if srv := c.RPCServers("dc1"); len(srv) != 1 || srv[0].RPCAdvertiseAddr != "127.0.0.1:4647" || srv[0].Datacenter != "dc1" {
		t.Fatalf("rpc servers: %+v", srv)
	}
	m := c.Members()
	if len(m.Members) != 1 || m.Members[0].Name != "s1.global" || m.Members[0].Tags["leader"] != "true" || m.ServerDC != "dc1" {
		t.Fatalf("members: %+v", m)
	}
	if len(c.ServerMembers()) != 0 {
		t.Fatalf("server members without gossip: %+v", c.ServerMembers())
	}
	if _, err := c.Join([]string{"127.0.0.1:4648"}); !errors.Is(err, ErrNoSerf) {
		t.Fatalf("join: %v", err)
	}
	if _, err := c.KeyringOp(KeyringList, ""); !errors.Is(err, ErrNoSerf) {
		t.Fatalf("keyring: %v", err)
	}
	if err := c.ForceLeave("s2.global"); !errors.Is(err, ErrNoSerf) {
		t.Fatalf("force-leave: %v", err)
	}
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if err := c.Shutdown(); err != nil {
		t.Fatalf("second shutdown: %v", err)
	}
}
