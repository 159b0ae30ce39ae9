package cli

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/agent"
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/version"
)

// agentFlags are the command-line overrides of the agent configuration; a
// flag wins over every file only when it is given.
type agentFlags struct {
	dev                             bool
	configs                         stringList
	dataDir, bind, node, dc, region string
	servers, logLevel               string
	server, client                  bool
	bootstrapExpect                 int
}

// agentCommand is `agent [-dev] [-config FILE]... [flags]`: build the
// configuration (dev or default values, then each file in order, then the
// flags), validate it, start the agent and run until SIGINT or SIGTERM.
func agentCommand(m *Meta, args []string) int {
	f := m.newLocalFlags("agent", "[options]")
	a := registerAgentFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	cfg, err := buildAgentConfig(f, a)
	if err != nil {
		return m.errorf("loading configuration: %v", err)
	}
	return runAgent(m, cfg)
}

func registerAgentFlags(f *flags) *agentFlags {
	a := &agentFlags{}
	f.BoolVar(&a.dev, "dev", false, "server and client in one process, in-memory state, raw_exec enabled")
	f.Var(&a.configs, "config", "HCL agent configuration file or directory; repeatable, later files win")
	f.StringVar(&a.dataDir, "data-dir", "", "directory for the agent's state (data_dir)")
	f.StringVar(&a.bind, "bind", "", "address to bind listeners to (bind_addr)")
	f.StringVar(&a.node, "node", "", "node name (name)")
	f.StringVar(&a.dc, "dc", "", "datacenter")
	f.StringVar(&a.region, "region", "", "region")
	f.StringVar(&a.servers, "servers", "", "comma-separated server RPC addresses for the client (client.servers)")
	f.StringVar(&a.logLevel, "log-level", "", "TRACE, DEBUG, INFO, WARN or ERROR")
	f.BoolVar(&a.server, "server", false, "enable the server (server.enabled)")
	f.BoolVar(&a.client, "client", false, "enable the client (client.enabled)")
	f.IntVar(&a.bootstrapExpect, "bootstrap-expect", 0, "servers to wait for before bootstrapping")
	return a
}

// buildAgentConfig layers defaults, files and the flags that were given,
// then validates the result.
func buildAgentConfig(f *flags, a *agentFlags) (*config.Config, error) {
	cfg := config.DefaultConfig()
	if a.dev {
		cfg = config.DevConfig()
	}
	for _, path := range a.configs {
		fc, err := config.LoadPath(path)
		if err != nil {
			return nil, err
		}
		cfg = cfg.Merge(fc)
	}
	f.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "data-dir":
			cfg.DataDir = a.dataDir
		case "bind":
			cfg.BindAddr = a.bind
		case "node":
			cfg.Name = a.node
		case "dc":
			cfg.Datacenter = a.dc
		case "region":
			cfg.Region = a.region
		case "servers":
			cfg.Client.Servers = splitList(a.servers)
		case "log-level":
			cfg.LogLevel = a.logLevel
		case "server":
			cfg.Server.Enabled = a.server
		case "client":
			cfg.Client.Enabled = a.client
		case "bootstrap-expect":
			cfg.Server.BootstrapExpect = a.bootstrapExpect
		}
	})
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// runAgent starts the agent, prints the banner and waits for a signal; a
// second signal during the graceful shutdown exits at once.
func runAgent(m *Meta, cfg *config.Config) int {
	logs := newGatedWriter(m.Out)
	defer logs.Flush() // an agent that fails to start still shows its logs
	// An intercept logger: GET /v1/agent/monitor registers a sink per request.
	logger := hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "agent", Level: hclog.LevelFromString(cfg.LogLevel), Output: logs})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)

	fmt.Fprintln(m.Out, "==> Starting nomadish agent...")
	start := time.Now()
	ag, err := agent.New(cfg, logger)
	if err != nil {
		return m.errorf("starting agent: %v", err)
	}
	printBanner(m, cfg, ag.HTTPAddr())
	fmt.Fprintf(m.Out, "==> nomadish agent started in %v! Log data will stream in below:\n\n", time.Since(start).Round(time.Millisecond))
	logs.Flush()

	sig := <-sigs
	logger.Info("caught signal, shutting down gracefully", "signal", sig)
	done := make(chan error, 1)
	go func() { done <- ag.Shutdown() }()
	select {
	case err := <-done:
		if err != nil {
			return m.errorf("shutting down agent: %v", err)
		}
		fmt.Fprintln(m.Out, "==> nomadish agent stopped")
		return exitOK
	case sig := <-sigs:
		fmt.Fprintf(m.Err, "==> caught second signal %v, exiting now\n", sig)
		return exitError
	}
}

func printBanner(m *Meta, cfg *config.Config, httpAddr string) {
	fmt.Fprintln(m.Out, "==> nomadish agent configuration:")
	fmt.Fprintln(m.Out)
	rows := [][2]string{
		{"HTTP Addr", httpAddr},
		{"RPC Addr", cfg.AdvertiseAddr("rpc")},
		{"Client", fmt.Sprint(cfg.Client.Enabled)},
		{"Server", fmt.Sprint(cfg.Server.Enabled)},
		{"Dev Mode", fmt.Sprint(cfg.DevMode)},
		{"Log Level", cfg.LogLevel},
		{"Node Name", cfg.Name},
		{"Region", fmt.Sprintf("%s (DC: %s)", cfg.Region, cfg.Datacenter)},
		{"Version", version.Version},
	}
	for _, r := range rows {
		fmt.Fprintf(m.Out, "%20s: %s\n", r[0], r[1])
	}
	fmt.Fprintln(m.Out)
}
