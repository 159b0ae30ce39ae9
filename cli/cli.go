package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/nomadish/nomadish/internal/suggest"
)

// Exit codes shared by the commands.
const (
	exitOK        = 0
	exitError     = 1
	exitPlaceFail = 2 // job run / job stop: placements failed
)

// Meta is what every command gets: where to write, how to read the
// environment and the clock (for relative times). Tests build their own.
type Meta struct {
	Out, Err io.Writer
	Getenv   func(string) string
	Now      func() time.Time
}

// command is one CLI command: "job run", "alloc logs", ...
type command struct {
	name     string
	synopsis string
	hidden   bool
	run      func(m *Meta, args []string) int
}

// commands lists every command; families with sub-commands ("job") are
// resolved on their first two or three words.
func commands() []command {
	return append(append(aclCommands(), simClusterCommands()...), []command{ // sim_cluster.go
		{name: "agent", synopsis: "Run a nomadish agent (server, client or both)", run: agentCommand},
		{name: "job run", synopsis: "Run a new job or update an existing one", run: jobRunCommand},
		{name: "job plan", synopsis: "Dry-run a job update", run: jobPlanCommand},
		{name: "job status", synopsis: "Display status information about a job", run: jobStatusCommand},
		{name: "job stop", synopsis: "Stop a running job", run: jobStopCommand},
		{name: "job validate", synopsis: "Check a job file for errors", run: jobValidateCommand},
		{name: "job inspect", synopsis: "Print the JSON of a registered job", run: jobInspectCommand},
		{name: "job history", synopsis: "Display all tracked versions of a job", run: jobHistoryCommand},
		{name: "job revert", synopsis: "Revert a job to a prior version", run: jobRevertCommand},
		{name: "job scale", synopsis: "Change the count of a job's task group", run: jobScaleCommand},
		{name: "job dispatch", synopsis: "Dispatch an instance of a parameterized job", run: jobDispatchCommand},
		{name: "job periodic force", synopsis: "Force the launch of a periodic job", run: jobPeriodicForceCommand},
		{name: "scaling policy list", synopsis: "List the groups' scaling policies", run: scalingPolicyListCommand},
		{name: "scaling policy info", synopsis: "Show one scaling policy", run: scalingPolicyInfoCommand},
		{name: "service list", synopsis: "List the services registered with Nomad's service discovery", run: serviceListCommand}, // service.go
		{name: "service info", synopsis: "Display the registrations of one service", run: serviceInfoCommand},
		{name: "service delete", synopsis: "Delete one service registration", run: serviceDeleteCommand},
		{name: "alloc status", synopsis: "Display status information about an allocation", run: allocStatusCommand},
		{name: "alloc logs", synopsis: "Stream the logs of a task", run: allocLogsCommand},
		{name: "alloc fs", synopsis: "Inspect the contents of an allocation directory", run: allocFSCommand},
		{name: "alloc exec", synopsis: "Run a command in a running task", run: allocExecCommand},
		{name: "alloc signal", synopsis: "Send a signal to the tasks of an allocation", run: allocSignalCommand},
		{name: "alloc restart", synopsis: "Restart the running tasks of an allocation in place", run: allocRestartCommand},
		{name: "alloc stop", synopsis: "Stop an allocation and have it replaced", run: allocStopCommand},
		{name: "alloc checks", synopsis: "Display the latest results of an allocation's service checks", run: allocChecksCommand},
		{name: "node status", synopsis: "Display status information about nodes", run: nodeStatusCommand},
		{name: "node drain", synopsis: "Drain a node: migrate its allocations elsewhere", run: nodeDrainCommand},
		{name: "node eligibility", synopsis: "Toggle a node's scheduling eligibility", run: nodeEligibilityCommand},
		{name: "node pool apply", synopsis: "Create or update a node pool from a spec file", run: nodePoolApplyCommand},
		{name: "node pool list", synopsis: "List node pools", run: nodePoolListCommand},
		{name: "node pool info", synopsis: "Display a node pool", run: nodePoolInfoCommand},
		{name: "node pool delete", synopsis: "Delete a node pool", run: nodePoolCommand("delete", nodePoolDelete)},
		{name: "node pool jobs", synopsis: "List the jobs of a node pool", run: nodePoolCommand("jobs", nodePoolJobs)},
		{name: "node pool nodes", synopsis: "List the nodes of a node pool", run: nodePoolCommand("nodes", nodePoolNodes)},
		{name: "namespace apply", synopsis: "Create or update a namespace", run: namespaceApplyCommand},
		{name: "namespace list", synopsis: "List namespaces", run: namespaceListCommand},
		{name: "namespace status", synopsis: "Display a namespace", run: namespaceStatusCommand},
		{name: "namespace delete", synopsis: "Delete a namespace", run: namespaceDeleteCommand},
		{name: "job promote", synopsis: "Promote the canaries of a job's deployment", run: jobPromoteCommand},
		{name: "deployment list", synopsis: "List deployments", run: deploymentListCommand},
		{name: "deployment status", synopsis: "Display the status of a deployment", run: deploymentStatusCommand},
		{name: "deployment promote", synopsis: "Promote the canaries of a deployment", run: deploymentPromoteCommand},
		{name: "deployment fail", synopsis: "Mark a deployment failed", run: deploymentFailCommand},
		{name: "deployment pause", synopsis: "Pause a deployment", run: deploymentPauseCommand},
		{name: "deployment resume", synopsis: "Resume a paused deployment", run: deploymentResumeCommand},
		{name: "eval status", synopsis: "Display status information about an evaluation", run: evalStatusCommand},
		{name: "operator scheduler get-config", synopsis: "Display the scheduler configuration", run: operatorSchedulerGetConfigCommand},
		{name: "operator scheduler set-config", synopsis: "Modify the scheduler configuration", run: operatorSchedulerSetConfigCommand},
		{name: "operator raft list-peers", synopsis: "Display the raft peer configuration", run: operatorRaftListPeersCommand},
		{name: "operator raft remove-peer", synopsis: "Remove a server from the raft configuration", run: operatorRaftRemovePeerCommand},
		{name: "operator snapshot save", synopsis: "Save a snapshot of the cluster state", run: operatorSnapshotSaveCommand},
		{name: "operator snapshot restore", synopsis: "Restore the cluster state from a snapshot", run: operatorSnapshotRestoreCommand},
		{name: "operator gossip keyring", synopsis: "Manage the servers' gossip encryption keys", run: operatorGossipKeyringCommand},
		{name: "operator root keyring list", synopsis: "List the root keys variables are encrypted with", run: operatorRootKeyringListCommand},
		{name: "operator root keyring rotate", synopsis: "Make a new active root key", run: operatorRootKeyringRotateCommand},
		{name: "operator metrics", synopsis: "Print the agent's metrics (JSON or Prometheus)", run: operatorMetricsCommand},
		{name: "var get", synopsis: "Read a variable", run: varGetCommand},
		{name: "var put", synopsis: "Create or update a variable", run: varPutCommand},
		{name: "var list", synopsis: "List variables", run: varListCommand},
		{name: "var purge", synopsis: "Delete a variable", run: varPurgeCommand},
		{name: "var lock", synopsis: "Hold a variable's lock while a command runs", run: varLockCommand},
		{name: "var init", synopsis: "Write an example variable specification", run: varInitCommand},
		{name: "server members", synopsis: "Display the servers gossip knows", run: serverMembersCommand},
		{name: "server join", synopsis: "Join the agent's server to other servers", run: serverJoinCommand},
		{name: "server force-leave", synopsis: "Mark a failed server as left", run: serverForceLeaveCommand},
		{name: "status", synopsis: "List jobs (or show one)", run: statusCommand},
		{name: "tls ca create", synopsis: "Create a certificate authority for agent TLS", run: tlsCACreateCommand},
		{name: "tls cert create", synopsis: "Create a server, client or CLI certificate signed by the CA", run: tlsCertCreateCommand},
		{name: "version", synopsis: "Print the nomadish version", run: versionCommand},
		{name: "system gc", synopsis: "Run the servers' garbage collector now", run: systemGCCommand}, // system.go
		{name: "system reconcile summaries", synopsis: "Recompute every job's summary", run: systemReconcileSummariesCommand},
		{name: "job allocs", synopsis: "List the allocations of a job", run: jobAllocsCommand},                          // job_allocs.go
		{name: "job deployments", synopsis: "List the deployments of a job", run: jobDeploymentsCommand},                // job_allocs.go
		{name: "eval list", synopsis: "List evaluations", run: evalListCommand},                                         // eval_list.go
		{name: "job init", synopsis: "Create an example job file", run: jobInitCommand},                                 // job_init.go
		{name: "fmt", synopsis: "Rewrite HCL files in the canonical format", run: fmtCommand},                           // fmt.go
		{name: "job eval", synopsis: "Force an evaluation of a job", run: jobEvalCommand},                               // job_eval.go
		{name: "job restart", synopsis: "Restart or reschedule a job's allocations in batches", run: jobRestartCommand}, // job_restart.go
		{name: "eval delete", synopsis: "Delete evaluations (the eval broker paused)", run: evalDeleteCommand},          // eval_delete.go
		{name: "operator raft transfer-leadership", synopsis: "Hand raft leadership to another server", run: operatorRaftTransferLeadershipCommand},
		{name: "operator autopilot get-config", synopsis: "Display the autopilot configuration", run: operatorAutopilotGetConfigCommand},
		{name: "operator autopilot set-config", synopsis: "Modify the autopilot configuration", run: operatorAutopilotSetConfigCommand},
		{name: "operator autopilot health", synopsis: "Display the servers' autopilot health", run: operatorAutopilotHealthCommand},
		{name: "agent-info", synopsis: "Display the agent's status and stats", run: agentInfoCommand},
		{name: "operator api", synopsis: "Send a request to the agent's HTTP API, like curl", run: operatorAPICommand},
		{name: "monitor", synopsis: "Stream the agent's log", run: agentMonitorCommand},
		{name: "node meta apply", synopsis: "Set or unset a node's dynamic metadata", run: nodeMetaApplyCommand},
		{name: "node meta read", synopsis: "Display a node's metadata", run: nodeMetaReadCommand},
		{name: "plugin", hidden: true, run: pluginCommand},
		{name: "artifact-fetch", hidden: true, run: artifactFetchCommand}, // artifact_fetch.go (getter.SubCommand)
		{name: "node gc", synopsis: "Destroy the terminal allocations of a node's client now", run: nodeGCCommand},
		{name: "alloc gc", synopsis: "Destroy a terminal allocation on its client now", run: allocGCCommand},
	}...)
}

// Run runs the command named by args[1:] (args[0] is the program name) and
// returns the process exit code.
func Run(args []string) int {
	m := &Meta{Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv, Now: time.Now}
	return m.Run(args[1:])
}

// Run dispatches args (without the program name) to a command.
func (m *Meta) Run(args []string) int {
	if m.Getenv == nil {
		m.Getenv = os.Getenv
	}
	if m.Now == nil {
		m.Now = time.Now
	}
	// Leading API options (-address, -token, ...) apply to the command that follows.
	var global []string
	for len(args) > 0 && isAPIFlag(args[0]) {
		n := 1
		if !strings.Contains(args[0], "=") && len(args) > 1 {
			n = 2
		}
		global, args = append(global, args[:n]...), args[n:]
	}
	if len(args) == 0 {
		m.usage(m.Err)
		return exitError
	}
	switch args[0] {
	case "-h", "-help", "--help":
		m.usage(m.Out)
		return exitOK
	case "help":
		if len(args) == 1 {
			m.usage(m.Out)
			return exitOK
		}
		args = append(args[1:len(args):len(args)], "-h") // help job run == job run -h
	case "-v", "-version", "--version":
		args[0] = "version"
	}
	cmds := commands()
	for _, want := range []int{4, 3, 2, 1} { // "operator root keyring list" has four words
		if len(args) < want {
			continue
		}
		name := strings.Join(args[:want], " ")
		for _, c := range cmds {
			if c.name == name {
				return c.run(m, append(global, args[want:]...))
			}
		}
	}
	return m.notACommand(cmds, args)
}

// notACommand answers args that name no command: the help of a family
// ("job -h", on stdout, exit 0), the family's subcommands when none is
// given, or "Unknown command" with the closest command name at the level of
// the typo ("job stauts": Did you mean "status"?).
func (m *Meta) notACommand(cmds []command, args []string) int {
	// fam is the longest family args start with: "", "job", "operator raft".
	fam, depth := "", 0
	for depth < len(args) && depth < 2 {
		p := strings.TrimSpace(fam + " " + args[depth])
		if len(familyCommands(cmds, p)) == 0 {
			break
		}
		fam, depth = p, depth+1
	}
	if depth > 0 && (depth == len(args) || isHelpFlag(args[depth])) {
		w, code := m.Err, exitError
		if depth < len(args) {
			w, code = m.Out, exitOK
		}
		fmt.Fprintf(w, "Usage: nomadish %s <subcommand> [options] [args]\n\nSubcommands:\n", fam)
		writeCommandList(w, familyCommands(cmds, fam))
		return code
	}
	fmt.Fprintf(m.Err, "Unknown command %q\n", strings.Join(args, " "))
	if s := suggest.Closest(args[depth], nextWords(cmds, fam, depth)); s != "" {
		fmt.Fprintf(m.Err, "Did you mean %q?\n", s)
		if fam != "" {
			fmt.Fprintf(m.Err, "Run \"nomadish %s -h\" for its subcommands.\n", fam)
		} else {
			fmt.Fprintln(m.Err, "Run \"nomadish -h\" for the list of commands.")
		}
		return exitError
	}
	fmt.Fprintln(m.Err)
	if fam != "" {
		fmt.Fprintf(m.Err, "Usage: nomadish %s <subcommand> [options] [args]\n\nSubcommands:\n", fam)
		writeCommandList(m.Err, familyCommands(cmds, fam))
	} else {
		m.usage(m.Err)
	}
	return exitError
}

// nextWords lists the distinct words at position depth of the visible
// commands under fam ("" for every command): the names a typo there could
// have meant.
func nextWords(cmds []command, fam string, depth int) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cmds {
		words := strings.Fields(c.name)
		if c.hidden || len(words) <= depth || (fam != "" && !strings.HasPrefix(c.name, fam+" ")) {
			continue
		}
		if w := words[depth]; !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func isHelpFlag(a string) bool {
	return a == "-h" || a == "-help" || a == "--help" || a == "help"
}

func familyCommands(cmds []command, fam string) []command {
	var out []command
	for _, c := range cmds {
		if !c.hidden && strings.HasPrefix(c.name, fam+" ") {
			out = append(out, c)
		}
	}
	return out
}

func (m *Meta) usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: nomadish [api options] <command> [options] [args]")
	fmt.Fprintln(w, "\nCommands:")
	var visible []command
	for _, c := range commands() {
		if !c.hidden {
			visible = append(visible, c)
		}
	}
	writeCommandList(w, visible)
	fmt.Fprintln(w, "\nAPI options, for every command talking to an agent (flag, else env NOMADISH_*, else NOMAD_*):")
	for _, o := range apiOptions {
		fmt.Fprintf(w, "    -%-12s %s (env NOMAD_%s)\n", o.flag, o.usage, o.env)
	}
	fmt.Fprintln(w, "\nRun \"nomadish <command> -h\" for a command's options.")
}

func writeCommandList(w io.Writer, cmds []command) {
	sort.SliceStable(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.name))
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "    %-*s  %s\n", width, c.name, c.synopsis)
	}
}

// flags is a command's flag set, with the apiOptions for a command that
// talks to an agent, and the command's usage line.
type flags struct {
	*flag.FlagSet
	api   map[string]*string // apiOptions by flag name (apiflags.go); nil for local commands
	usage string
}

// newFlags returns the flag set, apiOptions included, of the command called
// name; usage is the argument synopsis ("[options] FILE").
func (m *Meta) newFlags(name, usage string) *flags {
	f := m.newLocalFlags(name, usage)
	f.registerAPIFlags()
	return f
}

// newLocalFlags is newFlags for a command that talks to no agent (agent,
// tls, version): its help lists its own options only.
func (m *Meta) newLocalFlags(name, usage string) *flags {
	f := &flags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), usage: usage}
	f.SetOutput(io.Discard)
	return f
}

// parse parses args, letting flags and positional arguments interleave
// ("job run FILE -detach"). On error it prints the usage to m.Err and
// returns the exit code to use (0 for -help, 1 otherwise) and ok=false.
func (m *Meta) parse(f *flags, args []string) (pos []string, code int, ok bool) {
	for {
		if err := f.Parse(args); err != nil {
			w, code := m.Err, exitError
			if errors.Is(err, flag.ErrHelp) {
				w, code = m.Out, exitOK
			} else {
				fmt.Fprintf(w, "Error: %v\n", err)
			}
			fmt.Fprintf(w, "Usage: nomadish %s %s\n", f.Name(), f.usage)
			printOptions(w, f)
			return nil, code, false
		}
		args = f.Args()
		if len(args) == 0 {
			return pos, exitOK, true
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

// wrongArgs prints the usage line for a bad positional argument count.
func (m *Meta) wrongArgs(f *flags, want string) int {
	fmt.Fprintf(m.Err, "Error: this command takes %s\nUsage: nomadish %s %s\n", want, f.Name(), f.usage)
	return exitError
}

// errorf prints "Error <action>: <err>" to stderr and returns exit code 1.
func (m *Meta) errorf(format string, args ...any) int {
	fmt.Fprintf(m.Err, "Error "+format+"\n", args...)
	return exitError
}
