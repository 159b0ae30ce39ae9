package server

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestAutopilotConfigurationThroughRaft(t *testing.T) {
	s := testServer(t, nil)
	var got structs.AutopilotConfigResponse
	if err := s.RPC(structs.OperatorAutopilotGetConfigurationRPC, &structs.GenericRequest{}, &got); err != nil {
		t.Fatal(err)
	}
	if *got.Config != *structs.DefaultAutopilotConfig() {
		t.Fatalf("default %+v", got.Config)
	}
	cfg := *structs.DefaultAutopilotConfig()
	cfg.CleanupDeadServers, cfg.MinQuorum, cfg.LastContactThreshold = false, 3, time.Second
	var set structs.AutopilotSetConfigResponse
	if err := s.RPC(structs.OperatorAutopilotSetConfigurationRPC, &structs.AutopilotSetConfigRequest{Config: cfg}, &set); err != nil || !set.Updated {
		t.Fatalf("set: %+v %v", set, err)
	}
	if err := s.RPC(structs.OperatorAutopilotGetConfigurationRPC, &structs.GenericRequest{}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Config.CleanupDeadServers || got.Config.MinQuorum != 3 || got.Config.LastContactThreshold != time.Second ||
		got.Config.ModifyIndex != set.Index || got.Index != set.Index {
		t.Fatalf("after set %+v (index %d, write %d)", got.Config, got.Index, set.Index)
	}
	if ap := s.autopilotConfig(); ap.MinQuorum != 3 {
		t.Fatalf("the cluster's view: %+v", ap)
	}
	// A stale CAS loses; a fresh one wins; a negative duration is a 400.
	stale := *got.Config
	stale.ModifyIndex--
	if err := s.RPC(structs.OperatorAutopilotSetConfigurationRPC, &structs.AutopilotSetConfigRequest{Config: stale, CAS: true}, &set); err != nil || set.Updated {
		t.Fatalf("stale cas: %+v %v", set, err)
	}
	if err := s.RPC(structs.OperatorAutopilotSetConfigurationRPC, &structs.AutopilotSetConfigRequest{Config: *got.Config, CAS: true}, &set); err != nil || !set.Updated {
		t.Fatalf("fresh cas: %+v %v", set, err)
	}
	bad := cfg
	bad.ServerStabilizationTime = -time.Second
	if err := s.RPC(structs.OperatorAutopilotSetConfigurationRPC, &structs.AutopilotSetConfigRequest{Config: bad}, &set); errCode(err) != structs.ErrCodeBadRequest {
		t.Fatalf("negative duration: %v", err)
	}
}

func TestAutopilotServerHealthThreeServers(t *testing.T) {
	servers := startThreeServers(t)
	leader := leaderOf(t, servers, nil)
	var follower *Server
	for _, s := range servers {
		if s != leader {
			follower = s
		}
	}
	var rep structs.OperatorHealthReply
	deadline := time.Now().Add(20 * time.Second)
	for {
		// Asked of a follower: answered by the leader.
		if err := follower.RPC(structs.OperatorServerHealthRPC, &structs.GenericRequest{}, &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Healthy || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !rep.Healthy || rep.FailureTolerance != 1 || len(rep.Servers) != 3 || len(rep.Voters) != 3 || rep.Leader != leader.cluster.ServerID() {
		t.Fatalf("report %+v", rep)
	}
	leaders := 0
	for _, h := range rep.Servers {
		if h.Leader {
			leaders++
		}
		if !h.Healthy || !h.Voter || h.SerfStatus != "alive" || h.LastIndex == 0 || h.StableSince.IsZero() || h.Name == "" {
			t.Errorf("server %+v", h)
		}
	}
	if leaders != 1 {
		t.Fatalf("%d leaders in %+v", leaders, rep.Servers)
	}
}

// voterState returns whether id is in the leader's raft configuration and
// whether it votes.
func voterState(t *testing.T, s *Server, id string) (present, voter bool) {
	t.Helper()
	conf := raftConfiguration(t, s)
	for _, srv := range conf.Servers {
		if srv.ID == id {
			return true, srv.Voter
		}
	}
	return false, false
}

// A server joining after the bootstrap is a non-voter until it has been
// healthy for the stored ServerStabilizationTime.
func TestAutopilotPromotesAfterStabilizationTime(t *testing.T) {
	servers := startThreeServers(t)
	leader := leaderOf(t, servers, nil)
	cfg := *structs.DefaultAutopilotConfig()
	cfg.ServerStabilizationTime = time.Hour
	var set structs.AutopilotSetConfigResponse
	if err := leader.RPC(structs.OperatorAutopilotSetConfigurationRPC, &structs.AutopilotSetConfigRequest{Config: cfg}, &set); err != nil {
		t.Fatal(err)
	}
	fourth := startJoiningServer(t, servers[0])
	id := fourth.cluster.ServerID()
	deadline := time.Now().Add(20 * time.Second)
	for {
		present, voter := voterState(t, leader, id)
		if voter {
			t.Fatal("the new server votes before it was stable for an hour")
		}
		if present {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new server was never added to raft")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Several reconcile rounds (100ms apart) later it still does not vote.
	time.Sleep(500 * time.Millisecond)
	if _, voter := voterState(t, leader, id); voter {
		t.Fatal("promoted within the stabilization time")
	}

	cfg.ServerStabilizationTime = 0
	if err := leader.RPC(structs.OperatorAutopilotSetConfigurationRPC, &structs.AutopilotSetConfigRequest{Config: cfg}, &set); err != nil {
		t.Fatal(err)
	}
	for deadline = time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, voter := voterState(t, leader, id); voter {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not promoted once the stabilization time was 0")
		}
	}
}

// The agent's autopilot block is stored by the first leader when raft
// holds no configuration, and never replaces one an operator wrote.
func TestAutopilotInitialConfigurationStoredOnLeadership(t *testing.T) {
	initial := *structs.DefaultAutopilotConfig()
	initial.MinQuorum, initial.ServerStabilizationTime = 5, time.Minute
	s := testServer(t, func(c *Config) { c.Autopilot = &initial })
	var got structs.AutopilotConfigResponse
	if err := s.RPC(structs.OperatorAutopilotGetConfigurationRPC, &structs.GenericRequest{}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Config.MinQuorum != 5 || got.Config.ServerStabilizationTime != time.Minute || got.Config.ModifyIndex == 0 {
		t.Fatalf("stored %+v", got.Config)
	}
	changed := *got.Config
	changed.MinQuorum = 1
	var set structs.AutopilotSetConfigResponse
	if err := s.RPC(structs.OperatorAutopilotSetConfigurationRPC, &structs.AutopilotSetConfigRequest{Config: changed}, &set); err != nil {
		t.Fatal(err)
	}
	s.initAutopilotConfig() // as on a later leadership
	if err := s.RPC(structs.OperatorAutopilotGetConfigurationRPC, &structs.GenericRequest{}, &got); err != nil || got.Config.MinQuorum != 1 {
		t.Fatalf("after a second leadership: %+v %v", got.Config, err)
	}
}
