package cluster

import (
	"strconv"
	"time"

	"github.com/hashicorp/raft"
	"github.com/hashicorp/serf/serf"

	"github.com/nomadish/nomadish/structs"
)

// ServerMember is a serf member that is a nomadish server of this region.
type ServerMember struct {
	Name    string
	ID      string // raft server ID
	RPCAddr string // raft address
	Expect  int
	Status  serf.MemberStatus
}

// ServerMembers returns the serf members that are servers of this region
// (none without gossip). The caller owns the slice.
func (c *Cluster) ServerMembers() []ServerMember {
	if c.serf == nil {
		return nil
	}
	var out []ServerMember
	for _, m := range c.serf.Members() {
		if sm, ok := c.asServer(m); ok {
			out = append(out, sm)
		}
	}
	return out
}

func (c *Cluster) asServer(m serf.Member) (ServerMember, bool) {
	if m.Tags[tagRole] != roleServer || m.Tags[tagRegion] != c.cfg.Region || m.Tags[tagID] == "" || m.Tags[tagRPCAddr] == "" {
		return ServerMember{}, false
	}
	expect, _ := strconv.Atoi(m.Tags[tagExpect])
	return ServerMember{Name: m.Name, ID: m.Tags[tagID], RPCAddr: m.Tags[tagRPCAddr], Expect: expect, Status: m.Status}, true
}

// membershipLoop owns the reaction to serf events: it bootstraps raft once
// bootstrap_expect servers are alive, and on the leader reconciles raft
// peers with serf members on each event and every ReconcileInterval.
// Started by StartGossip; stops at shutdown.
func (c *Cluster) membershipLoop() {
	defer c.wg.Done()
	ticker := time.NewTicker(c.gossip.ReconcileInterval)
	defer ticker.Stop()
	for {
		select {
		case e := <-c.eventCh:
			if _, ok := e.(serf.MemberEvent); !ok {
				continue // user events and queries (keyring) need nothing here
			}
		case <-ticker.C:
		case <-c.shutdownCh:
			return
		}
		c.maybeBootstrap()
		if c.IsLeader() {
			c.reconcilePeers(time.Now())
		}
	}
}

// maybeBootstrap bootstraps raft with every alive server as a voter once
// bootstrap_expect of them have joined, unless raft already has state or a
// peer already belongs to a cluster (Nomad's rule). Membership loop only.
func (c *Cluster) maybeBootstrap() {
	if c.bootstrapped {
		return
	}
	if c.cfg.BootstrapExpect <= 1 || c.raft.LastIndex() > 0 {
		c.bootstrapped = true
		return
	}
	var alive []ServerMember
	for _, m := range c.ServerMembers() {
		if m.Status != serf.StatusAlive {
			continue
		}
		if m.Expect != c.cfg.BootstrapExpect {
			c.logger.Error("servers disagree on bootstrap_expect: not bootstrapping", "member", m.Name, "expect", m.Expect, "ours", c.cfg.BootstrapExpect)
			return
		}
		alive = append(alive, m)
	}
	if len(alive) < c.cfg.BootstrapExpect {
		return
	}
	for _, m := range alive {
		if m.ID == c.serverID {
			continue
		}
		var peers []string
		if err := c.cfg.Peers.RPC(m.RPCAddr, structs.StatusPeersRPC, &structs.GenericRequest{}, &peers); err != nil {
			c.logger.Debug("bootstrap: asking a server for its peers failed; retrying later", "server", m.Name, "error", err)
			return
		}
		if len(peers) > 0 {
			c.logger.Info("bootstrap: a server already has raft peers; joining its cluster instead", "server", m.Name)
			c.bootstrapped = true
			return
		}
	}
	conf := raft.Configuration{}
	for _, m := range alive {
		conf.Servers = append(conf.Servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(m.ID), Address: raft.ServerAddress(m.RPCAddr)})
	}
	c.logger.Info("bootstrapping raft", "servers", len(conf.Servers))
	if err := c.raft.BootstrapCluster(conf).Error(); err != nil && err != raft.ErrCantBootstrap {
		c.logger.Error("bootstrapping raft failed", "error", err)
		return
	}
	c.bootstrapped = true
}

// reconcilePeers makes raft's configuration follow serf on the leader:
// alive servers missing from raft join as non-voters and are promoted once
// stable (autopilot.go), a server at a new address is re-added with its
// suffrage, servers that left gracefully are removed, and failed ones are
// removed by the dead-server cleanup (autopilot.go). Membership loop only.
func (c *Cluster) reconcilePeers(now time.Time) {
	f := c.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		c.logger.Warn("reconcile: reading raft configuration", "error", err)
		return
	}
	inRaft := map[string]raft.Server{}
	voters := 0
	for _, srv := range f.Configuration().Servers {
		inRaft[string(srv.ID)] = srv
		if srv.Suffrage == raft.Voter {
			voters++
		}
	}
	ap := c.autopilot()
	var failed []ServerMember
	for _, m := range c.ServerMembers() {
		srv, ok := inRaft[m.ID]
		switch m.Status {
		case serf.StatusAlive:
			delete(c.failedSince, m.ID)
			if _, seen := c.aliveSince[m.ID]; !seen {
				c.aliveSince[m.ID] = now
			}
			c.addOrPromote(m, srv, ok, ap, now)
		case serf.StatusLeft:
			delete(c.failedSince, m.ID)
			if ok && m.ID != c.serverID {
				c.removePeer(m, "left")
			}
		case serf.StatusFailed:
			if ok && m.ID != c.serverID {
				failed = append(failed, m)
			}
		}
	}
	for id := range c.aliveSince {
		if m, ok := inRaft[id]; !ok || m.Suffrage == raft.Voter {
			delete(c.aliveSince, id) // promoted or gone: nothing to wait for
		}
	}
	c.cleanupDeadServers(failed, voters, ap, now)
}

// removePeer removes a server from the raft configuration (leader only).
func (c *Cluster) removePeer(m ServerMember, why string) {
	c.logger.Info("removing server from raft", "server", m.Name, "reason", why)
	if err := c.raft.RemoveServer(raft.ServerID(m.ID), 0, 0).Error(); err != nil {
		c.logger.Warn("removing raft peer failed", "server", m.Name, "error", err)
	}
}

// Members returns the serf view of the servers for Status.Members, with
// this server alone when gossip does not run.
func (c *Cluster) Members() *structs.ServerMembersResponse {
	cfg := c.cfg
	reply := &structs.ServerMembersResponse{ServerName: cfg.NodeName, ServerRegion: cfg.Region, ServerDC: cfg.Datacenter}
	leader := c.Leader()
	if c.serf == nil {
		host, port, _ := splitHostPort(cfg.Advertise)
		reply.Members = []*structs.ServerMember{{
			Name: cfg.NodeName + "." + cfg.Region, Addr: host, Port: uint16(port), Status: "alive",
			Tags: map[string]string{
				tagRole: roleServer, tagRegion: cfg.Region, tagDC: cfg.Datacenter, tagPort: strconv.Itoa(port),
				"bootstrap": "1", tagExpect: strconv.Itoa(cfg.BootstrapExpect), "leader": strconv.FormatBool(c.IsLeader()),
			},
			ProtocolMin: 1, ProtocolMax: 5, ProtocolCur: 2, DelegateMin: 2, DelegateMax: 5, DelegateCur: 4,
		}}
		return reply
	}
	for _, m := range c.serf.Members() {
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
