package server

import (
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/version"
)

var (
	_ endpoints.AutopilotHealther = (*Server)(nil)
	_ endpoints.RaftStatser       = (*Server)(nil)
)

// healthTracker remembers since when each raft server has been healthy
// (StableSince of the autopilot report). Safe for concurrent use.
type healthTracker struct {
	mu     sync.Mutex
	stable map[string]time.Time // raft ID -> healthy since; absent: unhealthy
}

// observe records id's health at now and returns since when it has been
// healthy (zero when it is not).
func (h *healthTracker) observe(id string, healthy bool, now time.Time) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stable == nil {
		h.stable = map[string]time.Time{}
	}
	if !healthy {
		delete(h.stable, id)
		return time.Time{}
	}
	if _, ok := h.stable[id]; !ok {
		h.stable[id] = now
	}
	return h.stable[id]
}

// RaftStats reports this server's raft progress (Status.RaftStats).
func (s *Server) RaftStats() structs.RaftStats {
	r := s.cluster.Raft()
	term, _ := strconv.ParseUint(r.Stats()["last_log_term"], 10, 64)
	return structs.RaftStats{LastContact: s.cluster.LastContact(), LastTerm: term, LastIndex: r.LastIndex()}
}

// ServerHealth reports every raft server's health against cfg, on the
// leader: a server is healthy when serf sees it alive (or gossip does not
// run and it is this server), it heard from the leader within
// LastContactThreshold, its log is of the leader's term and at most
// MaxTrailingLogs behind. The peers' progress is asked over RPC
// (Status.RaftStats), in parallel; a peer that does not answer is
// unhealthy. FailureTolerance is the healthy voters beyond a quorum.
func (s *Server) ServerHealth(cfg *structs.AutopilotConfig) (*structs.OperatorHealthReply, error) {
	r := s.cluster.Raft()
	if r.State() != raft.Leader {
		return nil, structs.ErrNoLeader
	}
	f := r.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, err
	}
	servers := f.Configuration().Servers
	serf := map[string]string{}
	names := map[string]string{}
	for _, m := range s.cluster.ServerMembers() {
		serf[m.ID], names[m.ID] = m.Status.String(), m.Name
	}
	self := s.RaftStats()
	stats := make([]structs.RaftStats, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		if string(srv.ID) == s.cluster.ServerID() {
			stats[i] = self
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.rpc.Peers().RPC(string(srv.Address), structs.StatusRaftStatsRPC, &structs.GenericRequest{}, &stats[i])
		}()
	}
	wg.Wait()

	now := time.Now()
	out := &structs.OperatorHealthReply{Healthy: true, Leader: s.cluster.ServerID(), Servers: []structs.ServerHealth{}, Voters: []string{}}
	healthyVoters := 0
	for i, srv := range servers {
		id := string(srv.ID)
		h := structs.ServerHealth{
			ID: id, Name: s.raftNodeName(srv, names), Address: string(srv.Address), SerfStatus: serf[id],
			Version: version.Version, Leader: id == out.Leader, Voter: srv.Suffrage == raft.Voter,
			LastContact: stats[i].LastContact, LastTerm: stats[i].LastTerm, LastIndex: stats[i].LastIndex,
		}
		if h.SerfStatus == "" {
			h.SerfStatus = "none"
			if s.cluster.ServerMembers() == nil && h.Leader {
				h.SerfStatus = "alive" // no gossip: this server alone
			}
		}
		h.Healthy = errs[i] == nil && h.SerfStatus == "alive" && stats[i].LastTerm == self.LastTerm &&
			(h.Leader || h.LastContact < cfg.LastContactThreshold) && self.LastIndex-min(self.LastIndex, stats[i].LastIndex) <= cfg.MaxTrailingLogs
		h.StableSince = s.health.observe(id, h.Healthy, now)
		if h.Voter {
			out.Voters = append(out.Voters, id)
			if h.Healthy {
				healthyVoters++
			}
		}
		out.Healthy = out.Healthy && h.Healthy
		out.Servers = append(out.Servers, h)
	}
	out.FailureTolerance = max(0, healthyVoters-(len(out.Voters)/2+1))
	return out, nil
}

// stableSince is the cluster's view of autopilot for promoting a new
// server (cluster.Config.StableSince): since when the raft server id has
// been healthy by the stored autopilot configuration, asked afresh.
func (s *Server) stableSince(id string) (time.Time, bool) {
	cfg := s.autopilotConfig()
	rep, err := s.ServerHealth(cfg)
	if err != nil {
		return time.Time{}, false
	}
	for _, h := range rep.Servers {
		if h.ID == id && h.Healthy {
			return h.StableSince, true
		}
	}
	return time.Time{}, false
}

// autopilotConfig is the stored autopilot configuration (the default until
// one is written), for the cluster's membership loop.
func (s *Server) autopilotConfig() *structs.AutopilotConfig {
	cfg, err := s.State().Snapshot().AutopilotConfig(nil)
	if err != nil {
		return structs.DefaultAutopilotConfig()
	}
	return cfg
}
