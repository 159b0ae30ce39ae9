package cluster

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/memberlist"
	"github.com/hashicorp/serf/serf"
)

// Serf tags every server sets (Nomad's names where Nomad has them).
const (
	tagRole     = "role"     // always "nomad"
	tagRegion   = "region"   // the server's region
	tagDC       = "dc"       // the server's datacenter
	tagPort     = "port"     // the RPC port
	tagRPCAddr  = "rpc_addr" // the advertised RPC host:port (raft address)
	tagID       = "id"       // the raft server ID
	tagExpect   = "expect"   // bootstrap_expect
	tagBuild    = "build"
	roleServer  = "nomad"
	serfDirName = "serf"
)

// GossipConfig configures serf membership (the server block's gossip
// keys). Zero values take the defaults noted on each field.
type GossipConfig struct {
	// SerfAddr is the host:port serf binds to; "" runs no gossip (dev mode,
	// unit tests): the server is then alone.
	SerfAddr string
	// SerfAdvertise is the host:port other servers reach (default SerfAddr).
	SerfAdvertise string
	// StartJoin are serf addresses joined once at start (failures logged).
	StartJoin []string
	// RetryJoin are serf addresses joined until one join succeeds.
	RetryJoin []string
	// RetryInterval is the pause between retry_join attempts (default 5s).
	RetryInterval time.Duration
	// RetryMax bounds retry_join attempts (0: no bound).
	RetryMax int
	// EncryptKey is the base64 gossip key (16, 24 or 32 bytes); "" gossips
	// in clear unless a keyring file from an earlier run exists.
	EncryptKey string
	// DisableDeadServerCleanup keeps failed servers as raft voters.
	DisableDeadServerCleanup bool
	// DeadServerGrace is how long a server stays failed in serf before the
	// leader removes it from raft (default 1m).
	DeadServerGrace time.Duration
	// ReconcileInterval is how often the leader reconciles serf members
	// with raft peers besides on each serf event (default 2s).
	ReconcileInterval time.Duration
}

func (c GossipConfig) withDefaults() GossipConfig {
	if c.RetryInterval <= 0 {
		c.RetryInterval = 5 * time.Second
	}
	if c.DeadServerGrace <= 0 {
		c.DeadServerGrace = time.Minute
	}
	if c.ReconcileInterval <= 0 {
		c.ReconcileInterval = 2 * time.Second
	}
	return c
}

// StartGossip starts serf when a serf address is configured, then the
// membership loop and retry_join (start_join is tried once, before it
// returns). Called once by the server after New, with its leadership
// monitor running; without a serf address the server is alone.
func (c *Cluster) StartGossip() error {
	if c.gossip.SerfAddr == "" {
		return nil
	}
	conf, err := c.serfConfig()
	if err != nil {
		return err
	}
	c.eventCh = make(chan serf.Event, 256)
	conf.EventCh = c.eventCh
	sf, err := serf.Create(conf)
	if err != nil {
		return fmt.Errorf("starting serf on %s: %w", c.gossip.SerfAddr, err)
	}
	c.serf = sf
	c.wg.Add(1)
	go c.membershipLoop()
	if len(c.gossip.StartJoin) > 0 {
		if n, err := c.Join(c.gossip.StartJoin); err != nil {
			c.logger.Warn("start_join failed", "joined", n, "error", err)
		}
	}
	if len(c.gossip.RetryJoin) > 0 {
		c.wg.Add(1)
		go c.retryJoin()
	}
	return nil
}

// serfConfig builds serf's configuration: LAN memberlist timings, the
// server's tags, a snapshot (so a restarted server rejoins its peers) and
// the keyring under <data_dir>/server/serf outside dev mode.
func (c *Cluster) serfConfig() (*serf.Config, error) {
	host, port, err := splitHostPort(c.gossip.SerfAddr)
	if err != nil {
		return nil, fmt.Errorf("%w: serf address %q: %v", ErrConfig, c.gossip.SerfAddr, err)
	}
	conf := serf.DefaultConfig()
	conf.Init()
	conf.NodeName = c.cfg.NodeName + "." + c.cfg.Region
	_, rpcPort, _ := net.SplitHostPort(c.cfg.Advertise)
	conf.Tags = map[string]string{
		tagRole: roleServer, tagRegion: c.cfg.Region, tagDC: c.cfg.Datacenter,
		tagPort: rpcPort, tagRPCAddr: c.cfg.Advertise, tagID: c.serverID,
		tagExpect: strconv.Itoa(c.cfg.BootstrapExpect), tagBuild: "nomadish",
	}
	stdlog := c.logger.Named("serf").StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})
	conf.Logger = stdlog
	ml := memberlist.DefaultLANConfig()
	ml.Name = conf.NodeName
	ml.BindAddr, ml.BindPort = host, port
	ml.Logger = stdlog
	if adv := c.gossip.SerfAdvertise; adv != "" {
		ah, ap, err := splitHostPort(adv)
		if err != nil {
			return nil, fmt.Errorf("%w: serf advertise %q: %v", ErrConfig, adv, err)
		}
		ml.AdvertiseAddr, ml.AdvertisePort = ah, ap
	}
	conf.MemberlistConfig = ml
	if !c.cfg.DevMode && c.cfg.DataDir != "" {
		dir := filepath.Join(c.cfg.DataDir, "server", serfDirName)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("creating serf dir: %w", err)
		}
		conf.SnapshotPath = filepath.Join(dir, "local.snapshot")
		conf.KeyringFile = filepath.Join(dir, "local.keyring")
	}
	if err := c.setupKeyring(conf); err != nil {
		return nil, err
	}
	return conf, nil
}

// setupKeyring installs the gossip keyring: the keyring file from an
// earlier run wins (keys rotated with `operator gossip keyring` survive a
// restart); else EncryptKey, which is written to the file.
func (c *Cluster) setupKeyring(conf *serf.Config) error {
	var keys []string
	if conf.KeyringFile != "" {
		b, err := os.ReadFile(conf.KeyringFile)
		switch {
		case err == nil:
			if err := json.Unmarshal(b, &keys); err != nil {
				return fmt.Errorf("%w: reading %s: %v", ErrEncryptKey, conf.KeyringFile, err)
			}
		case !errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("reading keyring: %w", err)
		}
	}
	if len(keys) == 0 && c.gossip.EncryptKey != "" {
		keys = []string{c.gossip.EncryptKey}
		if conf.KeyringFile != "" {
			b, _ := json.Marshal(keys)
			if err := os.WriteFile(conf.KeyringFile, b, 0o600); err != nil {
				return fmt.Errorf("writing keyring: %w", err)
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	raw := make([][]byte, 0, len(keys))
	for _, k := range keys {
		b, err := decodeGossipKey(k)
		if err != nil {
			return err
		}
		raw = append(raw, b)
	}
	kr, err := memberlist.NewKeyring(raw, raw[0])
	if err != nil {
		return fmt.Errorf("%w: %v", ErrEncryptKey, err)
	}
	conf.MemberlistConfig.Keyring = kr
	return nil
}

// decodeGossipKey checks a base64 key of 16, 24 or 32 bytes.
func decodeGossipKey(k string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(k)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64: %v", ErrEncryptKey, err)
	}
	if l := len(b); l != 16 && l != 24 && l != 32 {
		return nil, fmt.Errorf("%w: %d bytes, want 16, 24 or 32", ErrEncryptKey, l)
	}
	return b, nil
}

func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, fmt.Errorf("bad port %q", p)
	}
	return host, port, nil
}

// Join asks serf to join the servers at addrs (serf host:port). It returns
// how many it reached; an error only when none was.
func (c *Cluster) Join(addrs []string) (int, error) {
	if c.serf == nil {
		return 0, ErrNoSerf
	}
	c.joinMu.Lock()
	defer c.joinMu.Unlock()
	n, err := c.serf.Join(addrs, true)
	if n > 0 {
		return n, nil
	}
	return 0, err
}

// retryJoin joins RetryJoin until a join reaches someone, RetryMax attempts
// fail, or the cluster shuts down.
func (c *Cluster) retryJoin() {
	defer c.wg.Done()
	cfg := c.gossip
	for attempt := 1; ; attempt++ {
		n, err := c.Join(cfg.RetryJoin)
		if err == nil {
			c.logger.Info("retry_join: joined", "servers", n)
			return
		}
		if cfg.RetryMax > 0 && attempt >= cfg.RetryMax {
			c.logger.Error("retry_join: giving up", "attempts", attempt, "error", err)
			return
		}
		c.logger.Debug("retry_join: failed, retrying", "error", err, "in", cfg.RetryInterval)
		select {
		case <-time.After(cfg.RetryInterval):
		case <-c.shutdownCh:
			return
		}
	}
}
