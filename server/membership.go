package server

import (
	"strconv"
	"time"

	"github.com/hashicorp/raft"
	"github.com/hashicorp/serf/serf"

	"github.com/nomadish/nomadish/structs"
)

// serverMember is a serf member that is a nomadish server of this region.
type serverMember struct {
	Name    string
	ID      string // raft server ID
	RPCAddr string // raft address
	Expect  int
	Status  serf.MemberStatus
}

// serverMembers returns the serf members that are servers of this region.
// The caller owns the slice.
func (s *Server) serverMembers() []serverMember {
	if s.cluster.serf == nil {
		return nil
	}
	var out []serverMember
	for _, m := range s.cluster.serf.Members() {
		if sm, ok := s.asServer(m); ok {
			out = append(out, sm)
		}
	}
	return out
}

func (s *Server) asServer(m serf.Member) (serverMember, bool) {
	if m.Tags[tagRole] != roleServer || m.Tags[tagRegion] != s.cfg.Region || m.Tags[tagID] == "" || m.Tags[tagRPCAddr] == "" {
		return serverMember{}, false
	}
	expect, _ := strconv.Atoi(m.Tags[tagExpect])
	return serverMember{Name: m.Name, ID: m.Tags[tagID], RPCAddr: m.Tags[tagRPCAddr], Expect: expect, Status: m.Status}, true
}

// membershipLoop owns the reaction to serf events: it bootstraps raft once
// bootstrap_expect servers are alive, and on the leader reconciles raft
// peers with serf members on each event and every ReconcileInterval.
// Started by setupSerf; stops at shutdown.
func (s *Server) membershipLoop() {
	defer s.wg.Done()
	ticker := time.NewTicker(s.cluster.cfg.ReconcileInterval)
	defer ticker.Stop()
	for {
		select {
		case e := <-s.cluster.eventCh:
			if _, ok := e.(serf.MemberEvent); !ok {
				continue // user events and queries (keyring) need nothing here
			}
		case <-ticker.C:
		case <-s.shutdownCh:
			return
		}
		s.maybeBootstrap()
		if s.IsLeader() {
			s.reconcilePeers(time.Now())
		}
	}
}

// maybeBootstrap bootstraps raft with every alive server as a voter once
// bootstrap_expect of them have joined, unless raft already has state or a
// peer already belongs to a cluster (Nomad's rule). Membership loop only.
func (s *Server) maybeBootstrap() {
	if s.cluster.bootstrapped {
		return
	}
	if s.cfg.BootstrapExpect <= 1 || s.raft.LastIndex() > 0 {
		s.cluster.bootstrapped = true
		return
	}
	var alive []serverMember
	for _, m := range s.serverMembers() {
		if m.Status != serf.StatusAlive {
			continue
		}
		if m.Expect != s.cfg.BootstrapExpect {
			s.logger.Error("servers disagree on bootstrap_expect: not bootstrapping", "member", m.Name, "expect", m.Expect, "ours", s.cfg.BootstrapExpect)
			return
		}
		alive = append(alive, m)
	}
	if len(alive) < s.cfg.BootstrapExpect {
		return
	}
	for _, m := range alive {
		if m.ID == s.serverID {
			continue
		}
		var peers []string
		if err := s.peers.RPC(m.RPCAddr, structs.StatusPeersRPC, &structs.GenericRequest{}, &peers); err != nil {
			s.logger.Debug("bootstrap: asking a server for its peers failed; retrying later", "server", m.Name, "error", err)
			return
		}
		if len(peers) > 0 {
			s.logger.Info("bootstrap: a server already has raft peers; joining its cluster instead", "server", m.Name)
			s.cluster.bootstrapped = true
			return
		}
	}
	conf := raft.Configuration{}
	for _, m := range alive {
		conf.Servers = append(conf.Servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(m.ID), Address: raft.ServerAddress(m.RPCAddr)})
	}
	s.logger.Info("bootstrapping raft", "servers", len(conf.Servers))
	if err := s.raft.BootstrapCluster(conf).Error(); err != nil && err != raft.ErrCantBootstrap {
		s.logger.Error("bootstrapping raft failed", "error", err)
		return
	}
	s.cluster.bootstrapped = true
}

// reconcilePeers makes raft's configuration follow serf on the leader:
// alive servers missing from raft (or at a new address) become voters,
// servers that left gracefully are removed, and failed ones are removed by
// the dead-server cleanup (autopilot.go). Membership loop only.
func (s *Server) reconcilePeers(now time.Time) {
	f := s.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		s.logger.Warn("reconcile: reading raft configuration", "error", err)
		return
	}
	inRaft := map[string]raft.ServerAddress{}
	for _, srv := range f.Configuration().Servers {
		inRaft[string(srv.ID)] = srv.Address
	}
	var failed []serverMember
	for _, m := range s.serverMembers() {
		addr, ok := inRaft[m.ID]
		switch m.Status {
		case serf.StatusAlive:
			delete(s.cluster.failedSince, m.ID)
			if ok && string(addr) == m.RPCAddr {
				continue
			}
			s.logger.Info("adding server to raft", "server", m.Name, "addr", m.RPCAddr)
			if err := s.raft.AddVoter(raft.ServerID(m.ID), raft.ServerAddress(m.RPCAddr), 0, 0).Error(); err != nil {
				s.logger.Warn("adding raft voter failed", "server", m.Name, "error", err)
			}
		case serf.StatusLeft:
			delete(s.cluster.failedSince, m.ID)
			if ok && m.ID != s.serverID {
				s.removePeer(m, "left")
			}
		case serf.StatusFailed:
			if ok && m.ID != s.serverID {
				failed = append(failed, m)
			}
		}
	}
	s.cleanupDeadServers(failed, len(inRaft), now)
}

// removePeer removes a server from the raft configuration (leader only).
func (s *Server) removePeer(m serverMember, why string) {
	s.logger.Info("removing server from raft", "server", m.Name, "reason", why)
	if err := s.raft.RemoveServer(raft.ServerID(m.ID), 0, 0).Error(); err != nil {
		s.logger.Warn("removing raft peer failed", "server", m.Name, "error", err)
	}
}

// Members returns the serf view of the servers for Status.Members, with
// this server alone when gossip does not run.
func (s *Server) Members() *structs.ServerMembersResponse {
	cfg := s.cfg
	reply := &structs.ServerMembersResponse{ServerName: cfg.NodeName, ServerRegion: cfg.Region, ServerDC: cfg.Datacenter}
	leader := s.Leader()
	if s.cluster.serf == nil {
		host, port, _ := splitHostPort(s.advertise)
		reply.Members = []*structs.ServerMember{{
			Name: cfg.NodeName + "." + cfg.Region, Addr: host, Port: uint16(port), Status: "alive",
			Tags: map[string]string{
				tagRole: roleServer, tagRegion: cfg.Region, tagDC: cfg.Datacenter, tagPort: strconv.Itoa(port),
				"bootstrap": "1", tagExpect: strconv.Itoa(cfg.BootstrapExpect), "leader": strconv.FormatBool(s.IsLeader()),
			},
			ProtocolMin: 1, ProtocolMax: 5, ProtocolCur: 2, DelegateMin: 2, DelegateMax: 5, DelegateCur: 4,
		}}
		return reply
	}
	for _, m := range s.cluster.serf.Members() {
		tags := make(map[string]string, len(m.Tags)+1)
		for k, v := range m.Tags {
			tags[k] = v
		}
		tags["leader"] = strconv.FormatBool(leader != "" && m.Tags[tagRPCAddr] == leader)
		reply.Members = append(reply.Members, &structs.ServerMember{
			Name: m.Name, Addr: m.Addr.String(), Port: m.Port, Tags: tags, Status: m.Status.String(),
			ProtocolMin: m.ProtocolMin, ProtocolMax: m.ProtocolMax, ProtocolCur: m.ProtocolCur,
			DelegateMin: m.DelegateMin, DelegateMax: m.DelegateMax, DelegateCur: m.DelegateCur,
		})
	}
	return reply
}
