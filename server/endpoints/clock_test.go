package endpoints

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// fakeHeartbeats records the TTL timers the Node endpoint resets.
type fakeHeartbeats struct{ reset []string }

var _ Heartbeats = (*fakeHeartbeats)(nil)

func (h *fakeHeartbeats) Reset(id string, _ int) time.Duration {
	h.reset = append(h.reset, id)
	return time.Second
}
func (h *fakeHeartbeats) Remove(string) {}

// TestEndpointsStampDepsClock: built on its Deps alone (no server, no
// raft), the Node and Job endpoints stamp what they commit with d.Clock:
// Node.Register's StatusUpdatedAt and Job.Register's eval CreateTime and
// ModifyTime and the job's SubmitTime. (The whole server's stamps, through
// raft, the plan applier and heartbeat expiry: server.TestStateTimesFollowClock.)
func TestEndpointsStampDepsClock(t *testing.T) {
	d := testDeps(t)
	clock := d.Clock.(*clocktest.FakeClock)
	clock.Advance(time.Hour)
	now := clock.Now().UnixNano()
	var applied []any
	d.Apply = func(_ structs.MessageType, msg any) (uint64, any, error) {
		applied = append(applied, msg)
		return uint64(len(applied)), nil, nil
	}
	hb := &fakeHeartbeats{}
	d.Heartbeats = hb
	d.NodeServers = func() (string, []*structs.NodeServerInfo) { return "10.0.0.1:4647", nil }
	d.Limits.ClientIntroduction.Enforcement = IntroEnforcementNone

	node := &Node{d: d}
	n := &structs.Node{ID: "n1", SecretID: "s1", Name: "n1", Datacenter: "dc1"}
	var nr structs.NodeUpdateResponse
	if err := node.Register(&structs.NodeRegisterRequest{Node: n}, &nr); err != nil {
		t.Fatal(err)
	}
	reg, ok := applied[0].(*structs.NodeRegisterRequest)
	if !ok || reg.Node.StatusUpdatedAt != now {
		t.Fatalf("Node.Register applied %+v, want StatusUpdatedAt %d", applied[0], now)
	}
	if len(hb.reset) != 1 || nr.LeaderRPCAddr != "10.0.0.1:4647" || nr.HeartbeatTTL != time.Second {
		t.Fatalf("reply %+v, heartbeats reset %v", nr, hb.reset)
	}

	var jr structs.JobRegisterResponse
	if err := (&Job{d: d}).Register(&structs.JobRegisterRequest{Job: structstest.Job("web")}, &jr); err != nil {
		t.Fatal(err)
	}
	jreq, ok := applied[len(applied)-1].(*structs.JobRegisterRequest)
	if !ok || jreq.Eval.CreateTime != now || jreq.Eval.ModifyTime != now || jreq.Job.SubmitTime != now {
		t.Fatalf("Job.Register applied %+v, want eval times and submit time %d", applied[len(applied)-1], now)
	}
}
