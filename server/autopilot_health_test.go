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
