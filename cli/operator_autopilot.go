package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// autopilotConfig is api.AutopilotConfiguration as the agent sends it
// (durations as Go duration strings).
type autopilotConfig struct {
	CleanupDeadServers      bool
	LastContactThreshold    string
	MaxTrailingLogs         uint64
	MinQuorum               uint
	ServerStabilizationTime string
	EnableRedundancyZones   bool
	DisableUpgradeMigration bool
	EnableCustomUpgrades    bool
	CreateIndex             uint64
	ModifyIndex             uint64
}

// serverHealth and operatorHealth are api.ServerHealth and
// api.OperatorHealthReply as the agent sends them.
type serverHealth struct {
	ID, Name, Address, SerfStatus, Version string
	Leader                                 bool
	LastContact                            string
	LastTerm, LastIndex                    uint64
	Healthy, Voter                         bool
	StableSince                            time.Time
}

type operatorHealth struct {
	Healthy          bool
	FailureTolerance int
	Servers          []serverHealth
	Leader           string
	Voters           []string
}

// operatorAutopilotGetConfigCommand is `operator autopilot get-config`.
func operatorAutopilotGetConfigCommand(m *Meta, args []string) int {
	f := m.newFlags("operator autopilot get-config", "[options]")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	var cfg autopilotConfig
	if _, err := m.client(f).get("/v1/operator/autopilot/configuration", nil, &cfg); err != nil {
		return m.errorf("querying autopilot configuration: %v", err)
	}
	printAutopilotConfig(m, &cfg)
	return exitOK
}

// printAutopilotConfig prints cfg as Nomad's get-config does.
func printAutopilotConfig(m *Meta, cfg *autopilotConfig) {
	fmt.Fprintf(m.Out, "CleanupDeadServers = %t\n", cfg.CleanupDeadServers)
	fmt.Fprintf(m.Out, "LastContactThreshold = %s\n", cfg.LastContactThreshold)
	fmt.Fprintf(m.Out, "MaxTrailingLogs = %d\n", cfg.MaxTrailingLogs)
	fmt.Fprintf(m.Out, "MinQuorum = %d\n", cfg.MinQuorum)
	fmt.Fprintf(m.Out, "ServerStabilizationTime = %s\n", cfg.ServerStabilizationTime)
	fmt.Fprintf(m.Out, "EnableRedundancyZones = %t\n", cfg.EnableRedundancyZones)
	fmt.Fprintf(m.Out, "DisableUpgradeMigration = %t\n", cfg.DisableUpgradeMigration)
	fmt.Fprintf(m.Out, "EnableCustomUpgrades = %t\n", cfg.EnableCustomUpgrades)
}

// operatorAutopilotSetConfigCommand is `operator autopilot set-config`:
// the flags given change the current configuration, the others keep it;
// the write is a check-and-set against the configuration read first.
func operatorAutopilotSetConfigCommand(m *Meta, args []string) int {
	f := m.newFlags("operator autopilot set-config", "[options]")
	cleanup := f.Bool("cleanup-dead-servers", true, "remove failed servers from raft")
	lastContact := f.Duration("last-contact-threshold", 0, "a server silent for longer is unhealthy")
	trailing := f.Uint64("max-trailing-logs", 0, "a server further behind the leader is unhealthy")
	minQuorum := f.Uint("min-quorum", 0, "the least voters dead-server cleanup leaves")
	stabilization := f.Duration("server-stabilization-time", 0, "how long a new server is healthy before it votes")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	c := m.client(f)
	var cfg autopilotConfig
	if _, err := c.get("/v1/operator/autopilot/configuration", nil, &cfg); err != nil {
		return m.errorf("querying autopilot configuration: %v", err)
	}
	f.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "cleanup-dead-servers":
			cfg.CleanupDeadServers = *cleanup
		case "last-contact-threshold":
			cfg.LastContactThreshold = lastContact.String()
		case "max-trailing-logs":
			cfg.MaxTrailingLogs = *trailing
		case "min-quorum":
			cfg.MinQuorum = *minQuorum
		case "server-stabilization-time":
			cfg.ServerStabilizationTime = stabilization.String()
		}
	})
	var updated bool
	q := url.Values{"cas": {strconv.FormatUint(cfg.ModifyIndex, 10)}}
	if _, err := c.do(http.MethodPut, "/v1/operator/autopilot/configuration", q, &cfg, &updated); err != nil {
		return m.errorf("updating autopilot configuration: %v", err)
	}
	if !updated {
		return m.errorf("updating autopilot configuration: it changed concurrently; try again")
	}
	fmt.Fprintln(m.Out, "Configuration updated!")
	return exitOK
}

// operatorAutopilotHealthCommand is `operator autopilot health [-json]`:
// the servers' health as the leader sees it. An unhealthy cluster (the
// agent answers 429 with the report) is printed too, and exits 2.
func operatorAutopilotHealthCommand(m *Meta, args []string) int {
	f := m.newFlags("operator autopilot health", "[options]")
	asJSON := f.Bool("json", false, "print the report as JSON")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	var h operatorHealth
	_, err := m.client(f).get("/v1/operator/autopilot/health", nil, &h)
	if ae, ok := err.(*APIError); ok && ae.Status == http.StatusTooManyRequests {
		err = json.Unmarshal([]byte(ae.Body), &h)
	}
	if err != nil {
		return m.errorf("querying autopilot health: %v", err)
	}
	if *asJSON {
		out, _ := json.MarshalIndent(h, "", "    ")
		fmt.Fprintln(m.Out, string(out))
	} else {
		printAutopilotHealth(m, &h)
	}
	if !h.Healthy {
		return 2
	}
	return exitOK
}

// printAutopilotHealth prints h as Nomad's autopilot health does.
func printAutopilotHealth(m *Meta, h *operatorHealth) {
	fmt.Fprintf(m.Out, "Healthy: %t\nFailureTolerance: %d\nLeader: %s\nVoters:\n", h.Healthy, h.FailureTolerance, h.Leader)
	for _, v := range h.Voters {
		fmt.Fprintf(m.Out, "   %s\n", v)
	}
	fmt.Fprintln(m.Out, "Servers:")
	rows := [][]string{{"ID", "Name", "Address", "SerfStatus", "Version", "Leader", "Voter", "Healthy", "LastContact", "LastTerm", "LastIndex", "StableSince"}}
	for _, s := range h.Servers {
		stable := "-"
		if !s.StableSince.IsZero() {
			stable = s.StableSince.UTC().Format("2006-01-02 15:04:05 -0700 MST")
		}
		rows = append(rows, []string{s.ID, s.Name, s.Address, s.SerfStatus, s.Version, strconv.FormatBool(s.Leader), strconv.FormatBool(s.Voter),
			strconv.FormatBool(s.Healthy), s.LastContact, strconv.FormatUint(s.LastTerm, 10), strconv.FormatUint(s.LastIndex, 10), stable})
	}
	table(m.Out, rows)
}
