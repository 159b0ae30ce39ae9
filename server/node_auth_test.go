package server

import (
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// updateAllocsAsNodes sends client alloc updates as their nodes would: one
// Node.UpdateAlloc per node, authenticated with the node's secret
// ("secret-<id>", mockNode's). reply holds the last call's answer.
func updateAllocsAsNodes(s *Server, updates []*structs.Allocation, reply *structs.GenericResponse) error {
	byNode := map[string][]*structs.Allocation{}
	var order []string
	for _, u := range updates {
		a, err := s.State().AllocByID(nil, u.ID)
		if err != nil {
			return err
		}
		id := u.NodeID
		if a != nil {
			id = a.NodeID
		}
		if byNode[id] == nil {
			order = append(order, id)
		}
		byNode[id] = append(byNode[id], u)
	}
	for _, id := range order {
		req := &structs.AllocUpdateRequest{Alloc: byNode[id], WriteRequest: structs.WriteRequest{AuthToken: "secret-" + id}}
		if err := s.RPC(structs.NodeUpdateAllocRPC, req, reply); err != nil {
			return err
		}
	}
	return nil
}

// tcpServer is a dev-mode server listening for RPC on a loopback port, and
// a msgpack RPC client of it: what a remote caller sees.
func tcpServer(t *testing.T, mod func(*Config)) (*Server, func(method string, args, reply any) error) {
	t.Helper()
	s := testServer(t, func(c *Config) {
		c.RPCAddr = "127.0.0.1:0"
		if mod != nil {
			mod(c)
		}
	})
	pool := rpcclient.NewPool(nil, hclog.NewNullLogger())
	t.Cleanup(func() { pool.Close() })
	return s, func(method string, args, reply any) error { return pool.RPC(s.RPCAddr(), method, args, reply) }
}

// placeOnTwoNodes registers nodes n1 and n2 over rpc and a job of two allocs
// spread over them, and returns the allocs by node ID.
func placeOnTwoNodes(t *testing.T, s *Server, rpc func(string, any, any) error) map[string]*structs.Allocation {
	t.Helper()
	for _, id := range []string{"n1", "n2"} {
		var resp structs.NodeUpdateResponse
		if err := rpc(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: structstest.Node(id)}, &resp); err != nil {
			t.Fatalf("Node.Register %s: %v", id, err)
		}
	}
	job := structstest.Job("web")
	job.TaskGroups[0].Count = 2
	job.Spreads = []*structs.Spread{{Attribute: "${node.unique.id}", Weight: 100}}
	var jr structs.JobRegisterResponse
	if err := rpc(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &jr); err != nil {
		t.Fatal(err)
	}
	out := map[string]*structs.Allocation{}
	waitState(t, s, "one alloc on each node", func(st *state.StateStore, ws memdb.WatchSet) bool {
		clear(out)
		for _, a := range runningAllocs(st, ws, "web") {
			out[a.NodeID] = a
		}
		return len(out) == 2
	})
	return out
}

func TestGetNodeHidesSecretOverRPC(t *testing.T) {
	_, rpc := tcpServer(t, nil)
	var resp structs.NodeUpdateResponse
	if err := rpc(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: structstest.Node("n1")}, &resp); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  structs.NodeSpecificRequest
		want string
	}{
		{"no secret", structs.NodeSpecificRequest{NodeID: "n1"}, ""},
		{"wrong secret", structs.NodeSpecificRequest{NodeID: "n1", QueryOptions: structs.QueryOptions{AuthToken: "guess"}}, ""},
		{"the node itself", structs.NodeSpecificRequest{NodeID: "n1", QueryOptions: structs.QueryOptions{AuthToken: "secret-n1"}}, "secret-n1"},
	} {
		var got structs.SingleNodeResponse
		if err := rpc(structs.NodeGetNodeRPC, &tc.req, &got); err != nil || got.Node == nil {
			t.Fatalf("%s: %v %v", tc.name, got.Node, err)
		}
		if got.Node.SecretID != tc.want || got.Node.Name != "n1" {
			t.Fatalf("%s: SecretID %q, want %q", tc.name, got.Node.SecretID, tc.want)
		}
	}
}

func TestHeartbeatNeedsNodeSecretOverRPC(t *testing.T) {
	s, rpc := tcpServer(t, nil)
	var resp structs.NodeUpdateResponse
	if err := rpc(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: structstest.Node("n1")}, &resp); err != nil {
		t.Fatal(err)
	}
	before, _ := s.State().NodeByID(nil, "n1")
	for name, req := range map[string]*structs.NodeUpdateStatusRequest{
		"no secret":    {NodeID: "n1", Status: structs.NodeStatusDown},
		"wrong secret": {NodeID: "n1", Status: structs.NodeStatusDown, WriteRequest: structs.WriteRequest{AuthToken: "secret-n2"}},
		"wrong legacy": {NodeID: "n1", Status: structs.NodeStatusDown, SecretID: "x"},
	} {
		err := rpc(structs.NodeUpdateStatusRPC, req, &structs.NodeUpdateResponse{})
		if code, _ := structs.ErrorCode(err); code != structs.ErrCodeNodeAuth {
			t.Fatalf("%s: want 403, got %v", name, err)
		}
	}
	after, _ := s.State().NodeByID(nil, "n1")
	if after.Status != structs.NodeStatusReady || after.ModifyIndex != before.ModifyIndex {
		t.Fatalf("refused heartbeats changed the node: %s %d", after.Status, after.ModifyIndex)
	}
	ok := &structs.NodeUpdateStatusRequest{NodeID: "n1", Status: structs.NodeStatusReady, WriteRequest: structs.WriteRequest{AuthToken: "secret-n1"}}
	if err := rpc(structs.NodeUpdateStatusRPC, ok, &resp); err != nil || resp.HeartbeatTTL == 0 {
		t.Fatalf("heartbeat with the secret: %v", err)
	}
}

func TestReRegisterWithOtherSecretRefusedOverRPC(t *testing.T) {
	s, rpc := tcpServer(t, nil)
	var resp structs.NodeUpdateResponse
	if err := rpc(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: structstest.Node("n1")}, &resp); err != nil {
		t.Fatal(err)
	}
	fake := structstest.Node("n1")
	fake.SecretID, fake.Name = "attacker", "fake"
	err := rpc(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: fake}, &resp)
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeNodeAuth {
		t.Fatalf("want 403, got %v", err)
	}
	if n, _ := s.State().NodeByID(nil, "n1"); n.Name != "n1" || n.SecretID != "secret-n1" {
		t.Fatalf("node replaced: %+v", n)
	}
	// The state store holds the rule too (a race between two registrations).
	if err := s.State().UpsertNode(1000, fake); err != structs.ErrNodeSecretMismatch {
		t.Fatalf("UpsertNode with another secret: %v", err)
	}
}

func TestUpdateAllocOnlyOwnAllocsOverRPC(t *testing.T) {
	s, rpc := tcpServer(t, nil)
	byNode := placeOnTwoNodes(t, s, rpc)
	a1, a2 := byNode["n1"], byNode["n2"]
	failed := func(a *structs.Allocation) *structs.Allocation {
		return &structs.Allocation{ID: a.ID, NodeID: a.NodeID, ClientStatus: structs.AllocClientStatusFailed}
	}
	for _, tc := range []struct {
		name   string
		allocs []*structs.Allocation
		token  string
	}{
		{"no secret", []*structs.Allocation{failed(a1)}, ""},
		{"wrong secret", []*structs.Allocation{failed(a1)}, "secret-n2x"},
		{"another node's alloc", []*structs.Allocation{failed(a1)}, "secret-n2"},
		{"own and foreign mixed", []*structs.Allocation{failed(a2), failed(a1)}, "secret-n2"},
		{"foreign claiming own node", []*structs.Allocation{{ID: a1.ID, NodeID: "n2", ClientStatus: structs.AllocClientStatusFailed}}, "secret-n2"},
	} {
		req := &structs.AllocUpdateRequest{Alloc: tc.allocs, WriteRequest: structs.WriteRequest{AuthToken: tc.token}}
		err := rpc(structs.NodeUpdateAllocRPC, req, &structs.GenericResponse{})
		if code, _ := structs.ErrorCode(err); code != structs.ErrCodeNodeAuth {
			t.Fatalf("%s: want 403, got %v", tc.name, err)
		}
	}
	for _, a := range []*structs.Allocation{a1, a2} {
		now, _ := s.State().AllocByID(nil, a.ID)
		if now.ClientStatus != a.ClientStatus || now.ModifyIndex != a.ModifyIndex {
			t.Fatalf("refused updates changed alloc on %s: %s", a.NodeID, now.ClientStatus)
		}
	}
	// The owner's own update goes through.
	run := &structs.Allocation{ID: a1.ID, NodeID: "n1", ClientStatus: structs.AllocClientStatusRunning}
	req := &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{run}, WriteRequest: structs.WriteRequest{AuthToken: "secret-n1"}}
	var gr structs.GenericResponse
	if err := rpc(structs.NodeUpdateAllocRPC, req, &gr); err != nil || gr.Index == 0 {
		t.Fatalf("own update: %v", err)
	}
	if now, _ := s.State().AllocByID(nil, a1.ID); now.ClientStatus != structs.AllocClientStatusRunning {
		t.Fatalf("own update not applied: %s", now.ClientStatus)
	}
}

func TestGetClientAllocsNeedsSecretOverRPC(t *testing.T) {
	_, rpc := tcpServer(t, nil)
	var resp structs.NodeUpdateResponse
	if err := rpc(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: structstest.Node("n1")}, &resp); err != nil {
		t.Fatal(err)
	}
	var ca structs.NodeClientAllocsResponse
	err := rpc(structs.NodeGetClientAllocsRPC, &structs.NodeSpecificRequest{NodeID: "n1"}, &ca)
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeNodeAuth {
		t.Fatalf("want 403, got %v", err)
	}
	req := &structs.NodeSpecificRequest{NodeID: "n1", QueryOptions: structs.QueryOptions{AuthToken: "secret-n1"}}
	if err := rpc(structs.NodeGetClientAllocsRPC, req, &ca); err != nil {
		t.Fatal(err)
	}
}

func TestClientIntroductionModes(t *testing.T) {
	const token = "intro-token-0123456789"
	for _, tc := range []struct {
		mode, token string
		wantOK      bool
	}{
		{IntroEnforcementNone, "", true},
		{"", "", true}, // warn, the default
		{IntroEnforcementWarn, "", true},
		{IntroEnforcementStrict, "", false},
		{IntroEnforcementStrict, "intro-token-wrong-000", false},
		{IntroEnforcementStrict, token, true},
	} {
		s, rpc := tcpServer(t, func(c *Config) {
			c.ClientIntroduction = ClientIntroductionConfig{Enforcement: tc.mode, Tokens: []string{token}}
		})
		req := &structs.NodeRegisterRequest{Node: structstest.Node("n1"), WriteRequest: structs.WriteRequest{AuthToken: tc.token}}
		err := rpc(structs.NodeRegisterRPC, req, &structs.NodeUpdateResponse{})
		n, _ := s.State().NodeByID(nil, "n1")
		if tc.wantOK != (err == nil) || tc.wantOK != (n != nil) {
			t.Fatalf("mode %q token %q: err %v, node stored %v", tc.mode, tc.token, err, n != nil)
		}
		if err != nil && errCode(err) != structs.ErrCodeNodeAuth {
			t.Fatalf("mode %q: want 403, got %v", tc.mode, err)
		}
		if tc.wantOK && tc.mode == IntroEnforcementStrict {
			// Introduced once, the node re-registers with its secret alone.
			again := &structs.NodeRegisterRequest{Node: structstest.Node("n1")}
			if err := rpc(structs.NodeRegisterRPC, again, &structs.NodeUpdateResponse{}); err != nil {
				t.Fatalf("re-register without the token: %v", err)
			}
		}
	}
}

func TestClientIntroductionConfigValidate(t *testing.T) {
	for _, c := range []ClientIntroductionConfig{{Enforcement: "always"}, {Tokens: []string{"short"}}} {
		if err := c.Validate(); err == nil {
			t.Fatalf("%+v: want an error", c)
		}
	}
	if err := (ClientIntroductionConfig{Enforcement: IntroEnforcementStrict}).Validate(); err != nil {
		t.Fatal(err)
	}
}
