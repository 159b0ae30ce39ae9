package agent

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/jobspec"
	"github.com/nomadish/nomadish/server"
	"github.com/nomadish/nomadish/server/gc"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/version"
)

// serverConfig translates the agent config into the server's.
func (a *Agent) serverConfig() *server.Config {
	c := a.cfg
	sc := &server.Config{
		Region: c.Region, Datacenter: c.Datacenter, NodeName: c.Name, DataDir: c.DataDir,
		DevMode: c.DevMode, RPCAddr: c.Addr("rpc"), BootstrapExpect: c.Server.BootstrapExpect,
		NumSchedulers: c.Server.NumSchedulers, HeartbeatGrace: c.Server.HeartbeatGrace,
		MinHeartbeatTTL: c.Server.MinHeartbeatTTL, MaxHeartbeatsPerSecond: float64(c.Server.MaxHeartbeatsPerSecond),
		Logger: a.logger, Raft: raftConfig(c.Server),
		GC: gc.Config{Interval: c.Server.GC.JobGCInterval, Thresholds: gc.Thresholds{
			Job: c.Server.GC.JobGCThreshold, Eval: c.Server.GC.EvalGCThreshold, BatchEval: c.Server.GC.BatchEvalGCThreshold,
			Deployment: c.Server.GC.DeploymentGCThreshold, Node: c.Server.GC.NodeGCThreshold}},
		JobMaxCount:     c.Server.JobMaxCount,
		EventBufferSize: c.Server.EventBufferSize,
		ClientIntroduction: server.ClientIntroductionConfig{
			Enforcement: c.Server.ClientIntroEnforcement, Tokens: c.Server.ClientIntroTokens},
		SnapshotRestoreMaxBytes: int64(c.Server.SnapshotRestoreMaxMB) << 20,
		DriverSchemas:           catalog.Builtin,
		ACL: server.ACLConfig{Enabled: c.ACL.Enabled, TokenMinExpirationTTL: c.ACL.TokenMinExpirationTTL,
			TokenMaxExpirationTTL: c.ACL.TokenMaxExpirationTTL},
		MetricsInterval: c.Telemetry.CollectionInterval,

		DisableDispatchedJobSummaryMetrics: c.Telemetry.DisableDispatchedJobSummaryMetrics,
	}
	sc.JobMaxSourceSize, _ = c.Server.JobMaxSourceBytes() // checked by Validate
	sc.TLS = a.rpcTLS                                     // agent_tls.go
	sc.RPCLimits = server.RPCLimits{HandshakeTimeout: c.Limits.RPCHandshakeTimeout, MaxConnsPerClient: c.Limits.RPCMaxConnsPerClient}

	sc.Autopilot = autopilotConfig(c) // agent_autopilot.go
	if !c.DevMode {
		sc.Cluster = clusterConfig(c) // agent_cluster.go
	}
	if c.DevMode && sc.BootstrapExpect == 0 {
		sc.BootstrapExpect = 1
	}
	if c.Advertise.RPC != "" {
		sc.RPCAdvertise = c.AdvertiseAddr("rpc")
	} else if host, port, err := net.SplitHostPort(sc.RPCAddr); err == nil && port != "0" && unspecified(host) {
		sc.RPCAdvertise = net.JoinHostPort(localIP(), port)
	}
	return sc
}

// clientConfig translates the agent config into the client's.
func (a *Agent) clientConfig(o options) (*client.Config, error) {
	c := a.cfg
	exe := o.pluginExe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("finding the nomadish binary for driver plugins: %w", err)
		}
	}
	plugins := make(map[string]map[string]any, len(c.Plugins))
	for name, p := range c.Plugins {
		if p != nil {
			plugins[name] = p.Config
		}
	}
	return &client.Config{
		DataDir: c.DataDir, NodeName: c.Name, Datacenter: c.Datacenter, Region: c.Region,
		NodeClass: c.Client.NodeClass, NodePool: c.Client.NodePool, Meta: c.Client.Meta, Servers: c.Client.Servers,
		StateDir: c.Client.StateDir, AllocDir: c.Client.AllocDir,
		MinDynamicPort: c.Client.MinDynamicPort, MaxDynamicPort: c.Client.MaxDynamicPort, ReservedPorts: c.Client.ReservedPorts,
		ReservedCores: c.Client.ReservedCores, ReservableCores: c.Client.ReservableCores, SysfsRoot: c.Client.SysfsRoot,
		PluginConfig: plugins, Drivers: catalog.Builtin, PluginExecutable: exe, DevMode: c.DevMode, IntroToken: c.Client.IntroToken,
		Logger: a.logger, HTTPAddr: a.httpAdvertise(), HTTPTLS: a.httpSelfTLS, Version: version.Version,
		Artifacts:          artifactConfig(c.Client.Artifact, exe), // agent_artifact.go
		HostVolumes:        hostVolumes(c.Client.HostVolumes),      // agent_volumes.go
		Network:            clientNetwork(c.Client.Network),        // agent_network.go
		HostNetworks:       hostNetworks(c.Client.HostNetworks),
		GC:                 clientGC(c.Client.GC), // agent_gc.go
		PublishNodeMetrics: c.Telemetry.PublishNodeMetrics, PublishAllocationMetrics: c.Telemetry.PublishAllocationMetrics,
		MetricsInterval: c.Telemetry.CollectionInterval,
	}, nil
}

// httpAdvertise is the HTTP address others use to reach this agent: the
// advertise block's, else the bound address with a reachable host.
func (a *Agent) httpAdvertise() string {
	_, port, _ := net.SplitHostPort(a.ln.Addr().String())
	if adv := a.cfg.Advertise.HTTP; adv != "" {
		if _, _, err := net.SplitHostPort(adv); err == nil {
			return adv
		}
		return net.JoinHostPort(adv, port)
	}
	host, _, _ := net.SplitHostPort(a.ln.Addr().String())
	if unspecified(host) {
		host = localIP()
	}
	return net.JoinHostPort(host, port)
}

func unspecified(host string) bool {
	ip := net.ParseIP(host)
	return ip == nil || ip.IsUnspecified()
}

// localIP returns this machine's first private IPv4 address, else its first
// non-loopback one, else 127.0.0.1 (as Nomad picks an advertise address).
func localIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "127.0.0.1"
	}
	var fallback string
	for _, ad := range addrs {
		ipn, ok := ad.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.To4() == nil {
			continue
		}
		if ipn.IP.IsPrivate() {
			return ipn.IP.String()
		}
		if fallback == "" {
			fallback = ipn.IP.String()
		}
	}
	if fallback != "" {
		return fallback
	}
	return "127.0.0.1"
}

// serverAddrs adds the default RPC port to servers given without one.
func serverAddrs(servers []string) []string {
	out := make([]string, 0, len(servers))
	for _, s := range servers {
		if _, _, err := net.SplitHostPort(s); err != nil {
			s = net.JoinHostPort(strings.Trim(s, "[]"), strconv.Itoa(config.DefaultRPCPort))
		}
		out = append(out, s)
	}
	return out
}

// info describes the agent for /v1/agent/self and /v1/agent/health.
func (a *Agent) info() *agentInfo {
	inf := &agentInfo{Config: a.configMap(), Client: a.client != nil, Stats: map[string]map[string]string{}}
	nomad := map[string]string{"server": strconv.FormatBool(a.server != nil), "known_regions": "1"}
	if a.server != nil {
		inf.MemberName = a.cfg.Name + "." + a.cfg.Region
		nomad["leader"] = strconv.FormatBool(a.server.IsLeader())
		nomad["leader_addr"] = a.server.Leader()
		nomad["bootstrap"] = strconv.FormatBool(a.cfg.Server.BootstrapExpect <= 1)
		inf.Stats["raft"] = a.server.Cluster().Stats()
	}
	inf.Stats["nomad"] = nomad
	if a.client != nil {
		inf.Stats["client"] = map[string]string{
			"node_id": a.client.NodeID(), "known_servers": strings.Join(a.cfg.Client.Servers, ","),
		}
	}
	a.addStats(inf) // agent_stats.go
	return inf
}

// configMap is the agent config under Nomad's JSON names (api.AgentSelf's
// "config"), with the bound ports when 0 was asked for.
func (a *Agent) configMap() map[string]any {
	c := a.cfg
	ports := map[string]int{"HTTP": c.Ports.HTTP, "RPC": c.Ports.RPC, "Serf": c.Ports.Serf}
	if _, p, err := net.SplitHostPort(a.HTTPAddr()); err == nil {
		ports["HTTP"], _ = strconv.Atoi(p)
	}
	if _, p, err := net.SplitHostPort(a.RPCAddr()); err == nil {
		ports["RPC"], _ = strconv.Atoi(p)
	}
	plugins := make([]map[string]any, 0, len(c.Plugins))
	for name, p := range c.Plugins {
		if p != nil {
			plugins = append(plugins, map[string]any{"Name": name, "Config": p.Config})
		}
	}
	return map[string]any{
		"Region": c.Region, "Datacenter": c.Datacenter, "NodeName": c.Name, "DataDir": c.DataDir,
		"BindAddr": c.BindAddr, "LogLevel": c.LogLevel, "DevMode": c.DevMode, "Ports": ports,
		"Addresses":      map[string]string{"HTTP": c.Addresses.HTTP, "RPC": c.Addresses.RPC, "Serf": c.Addresses.Serf},
		"AdvertiseAddrs": map[string]string{"HTTP": c.Advertise.HTTP, "RPC": c.Advertise.RPC, "Serf": c.Advertise.Serf},
		"Server": map[string]any{"Enabled": c.Server.Enabled, "BootstrapExpect": c.Server.BootstrapExpect,
			"NumSchedulers": c.Server.NumSchedulers, "HeartbeatGrace": c.Server.HeartbeatGrace},
		"Client": map[string]any{"Enabled": c.Client.Enabled, "Servers": c.Client.Servers,
			"NodeClass": c.Client.NodeClass, "NodePool": c.Client.NodePool, "Meta": c.Client.Meta,
			"StateDir": c.Client.StateDir, "AllocDir": c.Client.AllocDir},
		"Plugins": plugins,
		// Nomad's agent/self reports its build here (api.AgentSelf's
		// config.Version).
		"Version": map[string]string{"Version": version.Version, "VersionPrerelease": "",
			"VersionMetadata": "", "Revision": version.Revision()},
	}
}

// parseJob is the JobParser of POST /v1/jobs/parse: vars (the content of a
// variables file) goes through a temporary file, as jobspec reads var files
// by path. HCL errors, and drivers or driver config the built-in drivers'
// schemas refuse, are 400s naming file:line:col.
func parseJob(name string, body []byte, vars string) (*structs.Job, error) {
	cfg := &jobspec.ParseConfig{Path: name, Body: body, Drivers: catalog.Builtin}
	if strings.TrimSpace(vars) != "" {
		f, err := os.CreateTemp("", "nomadish-vars-*.hcl")
		if err != nil {
			return nil, fmt.Errorf("writing variables: %w", err)
		}
		defer os.Remove(f.Name())
		_, err = f.WriteString(vars)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("writing variables: %w", err)
		}
		cfg.VarFiles = []string{f.Name()}
	}
	job, err := jobspec.Parse(cfg)
	var perr *jobspec.Error
	if errors.As(err, &perr) {
		return nil, badRequest("%v", err)
	}
	return job, err
}
