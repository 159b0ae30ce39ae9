package server

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/memberlist"
	"github.com/hashicorp/serf/serf"
)

// Sentinel errors of the serf membership.
var (
	ErrNoSerf     = errors.New("server: gossip is not running (dev mode or no serf address)")
	ErrEncryptKey = errors.New("server: invalid gossip encryption key")
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

// ClusterConfig configures serf membership. Zero values take the defaults
// noted on each field.
type ClusterConfig struct {
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

func (c ClusterConfig) withDefaults() ClusterConfig {
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

// clusterState is the server's serf side. serf and eventCh are written once
// by setupSerf before any reader starts; bootstrapped is atomic-free: only
// the membership loop touches it; failedSince belongs to the membership
// loop too.
type clusterState struct {
	serf    *serf.Serf
	eventCh chan serf.Event
	cfg     ClusterConfig

	bootstrapped bool                 // membership loop only
	failedSince  map[string]time.Time // membership loop only: raft ID -> first seen failed

	joinMu sync.Mutex // serializes Join calls from RPCs and retry_join
}

// setupSerf starts serf when a serf address is configured, then the
// membership loop and retry_join. Called once from NewServer after raft.
func (s *Server) setupSerf() error {
	s.cluster.cfg = s.cfg.Cluster.withDefaults()
	s.cluster.failedSince = map[string]time.Time{}
	if s.cfg.Cluster.SerfAddr == "" {
		return nil
	}
	conf, err := s.serfConfig()
	if err != nil {
		return err
	}
	s.cluster.eventCh = make(chan serf.Event, 256)
	conf.EventCh = s.cluster.eventCh
	sf, err := serf.Create(conf)
	if err != nil {
		return fmt.Errorf("starting serf on %s: %w", s.cfg.Cluster.SerfAddr, err)
	}
	s.cluster.serf = sf
	s.wg.Add(1)
	go s.membershipLoop()
	if len(s.cluster.cfg.StartJoin) > 0 {
		if n, err := s.Join(s.cluster.cfg.StartJoin); err != nil {
			s.logger.Warn("start_join failed", "joined", n, "error", err)
		}
	}
	if len(s.cluster.cfg.RetryJoin) > 0 {
		s.wg.Add(1)
		go s.retryJoin()
	}
	return nil
}

// serfConfig builds serf's configuration: LAN memberlist timings, the
// server's tags, a snapshot (so a restarted server rejoins its peers) and
// the keyring under <data_dir>/server/serf outside dev mode.
func (s *Server) serfConfig() (*serf.Config, error) {
	host, port, err := splitHostPort(s.cfg.Cluster.SerfAddr)
	if err != nil {
		return nil, fmt.Errorf("%w: serf address %q: %v", ErrConfig, s.cfg.Cluster.SerfAddr, err)
	}
	conf := serf.DefaultConfig()
	conf.Init()
	conf.NodeName = s.cfg.NodeName + "." + s.cfg.Region
	_, rpcPort, _ := net.SplitHostPort(s.advertise)
	conf.Tags = map[string]string{
		tagRole: roleServer, tagRegion: s.cfg.Region, tagDC: s.cfg.Datacenter,
		tagPort: rpcPort, tagRPCAddr: s.advertise, tagID: s.serverID,
		tagExpect: strconv.Itoa(s.cfg.BootstrapExpect), tagBuild: "nomadish",
	}
	stdlog := s.logger.Named("serf").StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})
	conf.Logger = stdlog
	ml := memberlist.DefaultLANConfig()
	ml.Name = conf.NodeName
	ml.BindAddr, ml.BindPort = host, port
	ml.Logger = stdlog
	if adv := s.cfg.Cluster.SerfAdvertise; adv != "" {
		ah, ap, err := splitHostPort(adv)
		if err != nil {
			return nil, fmt.Errorf("%w: serf advertise %q: %v", ErrConfig, adv, err)
		}
		ml.AdvertiseAddr, ml.AdvertisePort = ah, ap
	}
	conf.MemberlistConfig = ml
	if !s.cfg.DevMode && s.cfg.DataDir != "" {
		dir := filepath.Join(s.cfg.DataDir, "server", serfDirName)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("creating serf dir: %w", err)
		}
		conf.SnapshotPath = filepath.Join(dir, "local.snapshot")
		conf.KeyringFile = filepath.Join(dir, "local.keyring")
	}
	if err := s.setupKeyring(conf); err != nil {
		return nil, err
	}
	return conf, nil
}

// setupKeyring installs the gossip keyring: the keyring file from an
// earlier run wins (keys rotated with `operator gossip keyring` survive a
// restart); else EncryptKey, which is written to the file.
func (s *Server) setupKeyring(conf *serf.Config) error {
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
	if len(keys) == 0 && s.cfg.Cluster.EncryptKey != "" {
		keys = []string{s.cfg.Cluster.EncryptKey}
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
func (s *Server) Join(addrs []string) (int, error) {
	if s.cluster.serf == nil {
		return 0, ErrNoSerf
	}
	s.cluster.joinMu.Lock()
	defer s.cluster.joinMu.Unlock()
	n, err := s.cluster.serf.Join(addrs, true)
	if n > 0 {
		return n, nil
	}
	return 0, err
}

// retryJoin joins RetryJoin until a join reaches someone, RetryMax attempts
// fail, or the server shuts down.
func (s *Server) retryJoin() {
	defer s.wg.Done()
	cfg := s.cluster.cfg
	for attempt := 1; ; attempt++ {
		n, err := s.Join(cfg.RetryJoin)
		if err == nil {
			s.logger.Info("retry_join: joined", "servers", n)
			return
		}
		if cfg.RetryMax > 0 && attempt >= cfg.RetryMax {
			s.logger.Error("retry_join: giving up", "attempts", attempt, "error", err)
			return
		}
		s.logger.Debug("retry_join: failed, retrying", "error", err, "in", cfg.RetryInterval)
		select {
		case <-time.After(cfg.RetryInterval):
		case <-s.shutdownCh:
			return
		}
	}
}

// shutdownSerf leaves nothing behind: it shuts serf down without a graceful
// leave, so a stopped server stays a raft voter (as Nomad: a restart must not
// shrink the quorum). Called from Shutdown.
func (s *Server) shutdownSerf() error {
	if s.cluster.serf == nil {
		return nil
	}
	return s.cluster.serf.Shutdown()
}
