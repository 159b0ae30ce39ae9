package agent

import (
	"net"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/server/cluster"
)

// clusterConfig translates the server block's gossip keys into the
// server's serf settings (not used in -dev: a dev server gossips with no
// one). Join addresses without a port get the default serf port.
func clusterConfig(c *config.Config) cluster.GossipConfig {
	cc := cluster.GossipConfig{
		SerfAddr: c.Addr("serf"), StartJoin: serfAddrs(c.Server.StartJoin), RetryJoin: serfAddrs(c.Server.RetryJoin),
		RetryInterval: c.Server.RetryInterval, RetryMax: c.Server.RetryMax, EncryptKey: c.Server.Encrypt,
		DisableDeadServerCleanup: !c.Server.CleanupDeadServers, DeadServerGrace: c.Server.DeadServerGrace,
	}
	if c.Advertise.Serf != "" {
		cc.SerfAdvertise = c.AdvertiseAddr("serf")
	} else if host, port, err := net.SplitHostPort(cc.SerfAddr); err == nil && port != "0" && unspecified(host) {
		cc.SerfAdvertise = net.JoinHostPort(localIP(), port)
	}
	return cc
}

// serfAddrs adds the default serf port to addresses given without one.
func serfAddrs(addrs []string) []string {
	out := make([]string, 0, len(addrs))
	for _, s := range addrs {
		if _, _, err := net.SplitHostPort(s); err != nil {
			s = net.JoinHostPort(strings.Trim(s, "[]"), strconv.Itoa(config.DefaultSerfPort))
		}
		out = append(out, s)
	}
	return out
}
