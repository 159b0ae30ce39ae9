package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"time"

	"github.com/nomadish/nomadish/sim/cluster"
	"github.com/nomadish/nomadish/sim/fast"
	"github.com/nomadish/nomadish/sim/report"
	"github.com/nomadish/nomadish/sim/trace"
)

// The trace and HTML report makers sim run calls: variables, so the
// command's tests can hand it their own.
var (
	readTrace     = trace.Read
	generateTrace = generateFor
	writeHTML     = report.WriteHTML
)

// generateFor generates the named trace sized to spec's cluster: its first
// class's node size, its racks and its class names.
func generateFor(name string, seed uint64, d time.Duration, spec cluster.Spec, load float64) (*trace.Trace, error) {
	spec = spec.WithDefaults()
	c := spec.Classes[0]
	var classes []string
	for _, cl := range spec.Classes {
		if cl.Name != "" {
			classes = append(classes, cl.Name)
		}
	}
	return trace.Generate(name, trace.Options{Seed: int64(seed), Duration: d, Nodes: spec.Nodes, Load: load,
		NodeMemoryMB: c.MemoryMB, NodeCores: c.LogicalCPUs(), NodeCPUMHz: c.LogicalCPUs() * c.MHz,
		Racks: spec.Racks, NodeClasses: classes})
}

// simRunFlags are sim run's options.
type simRunFlags struct {
	nodes, racks, scoreLimit                int
	topology, clusterFile, datacenters      string
	workers                                 string
	workerCounts                            []int
	traceFile, generate, algorithm          string
	numa, reportFile, compare               string
	duration, startDelay, downtime          time.Duration
	costEval, costPlacement, costNode, cost time.Duration
	seed                                    uint64
	preemption, asJSON                      bool
	nodeFailures, load                      float64
}

func (m *Meta) simRunFlagSet(o *simRunFlags) *flags {
	f := m.newLocalFlags("sim run", "[options]")
	d, c := fast.DefaultConfig(), fast.DefaultCosts()
	f.IntVar(&o.nodes, "nodes", 1000, "Number of simulated nodes")
	f.StringVar(&o.topology, "topology", "2x16x2@2400MHz/256GiB", "Node shape: SOCKETSxCORES[xTHREADS][@SPEED][/MEMORY]")
	f.StringVar(&o.clusterFile, "cluster", "", "Cluster shape file (JSON, or HCL when named *.hcl); replaces -nodes, -topology, -datacenters and -racks")
	f.StringVar(&o.datacenters, "datacenters", "dc1", "Comma-separated datacenters the nodes are dealt to")
	f.IntVar(&o.racks, "racks", 10, "Racks per datacenter (meta.rack)")
	f.StringVar(&o.traceFile, "trace", "", "Workload trace file (JSON or CSV)")
	f.StringVar(&o.generate, "generate", "", "Generate the workload: google2019 or alibaba2018")
	f.Float64Var(&o.load, "load", 0.7, "With -generate: the workload's average share of the cluster's memory")
	f.DurationVar(&o.duration, "duration", d.Duration, "Simulated time to cover")
	f.StringVar(&o.workers, "workers", "1", "Scheduler workers; a list (1,2,4,8) runs the trace once per count and prints plan conflicts, retries and delays per count")
	f.Uint64Var(&o.seed, "seed", 1, "Random seed (cluster, generated trace, node failures)")
	f.StringVar(&o.algorithm, "algorithm", "binpack", "Scheduler algorithm: binpack or spread")
	f.BoolVar(&o.preemption, "preemption", false, "Turn preemption on for service and batch jobs")
	f.StringVar(&o.numa, "numa", "", "Override the trace's NUMA affinity of core asks: none, prefer or require")
	f.IntVar(&o.scoreLimit, "score-limit", 0, "Nodes scored per placement with affinity or spread (0: the scheduler's default, -1: all)")
	f.Float64Var(&o.nodeFailures, "node-failures", 0, "Node failures per node per day")
	f.DurationVar(&o.downtime, "node-downtime", d.NodeDowntime, "How long a failed node stays down")
	f.DurationVar(&o.startDelay, "start-delay", d.StartDelay, "From an allocation's commit to its running")
	f.DurationVar(&o.costEval, "cost-eval", c.Eval, "Modelled time of a scheduler pass")
	f.DurationVar(&o.costPlacement, "cost-placement", c.Placement, "Modelled time per placement")
	f.DurationVar(&o.costNode, "cost-node", c.Node, "Modelled time per node evaluated")
	f.DurationVar(&o.cost, "cost-apply", c.Apply, "Modelled plan-apply time per plan")
	f.BoolVar(&o.asJSON, "json", false, "Print the report as JSON")
	f.StringVar(&o.reportFile, "report", "", "Write an HTML report with plots to this file")
	f.StringVar(&o.compare, "compare", "", "Run the same trace a second time with these overrides and print the deltas: KEY=VALUE,... with keys "+overrideKeys+" (nodes=1250 asks how many nodes the workload needs)")
	return f
}

// simRunCommand is `sim run`: fast mode (sim/fast).
func simRunCommand(m *Meta, args []string) int {
	var o simRunFlags
	f := m.simRunFlagSet(&o)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	cfg, err := o.config()
	if err != nil {
		return m.errorf("in sim run options: %v", err)
	}
	// A batch run: trade memory for less GC time.
	debug.SetGCPercent(400)
	a, err := runSweep(cfg, o.workerCounts)
	if err != nil {
		return m.errorf("running the simulation: %v", err)
	}
	var b *report.Report
	if o.compare != "" {
		cfgB, err := applyOverrides(cfg, o.compare)
		if err != nil {
			return m.errorf("in -compare: %v", err)
		}
		if b, err = fast.Run(cfgB); err != nil {
			return m.errorf("running the compared simulation: %v", err)
		}
	}
	if o.reportFile != "" {
		runs := []*report.Report{a}
		if b != nil {
			runs = append(runs, b)
		}
		if err := writeReportFile(o.reportFile, runs); err != nil {
			return m.errorf("writing the HTML report: %v", err)
		}
	}
	return m.printSimRun(a, b, o.asJSON)
}

// config builds the run's Config from the flags, naming the bad flag.
func (o *simRunFlags) config() (fast.Config, error) {
	cfg := fast.DefaultConfig()
	var spec cluster.Spec
	if o.clusterFile != "" {
		s, err := cluster.LoadFile(o.clusterFile)
		if err != nil {
			return cfg, fmt.Errorf("-cluster: %w", err)
		}
		spec = s
	} else {
		class, err := cluster.ParseTopology(o.topology)
		if err != nil {
			return cfg, fmt.Errorf("-topology: %w", err)
		}
		spec = cluster.Spec{Nodes: o.nodes, Racks: o.racks, Datacenters: splitList(o.datacenters), Classes: []cluster.Class{class}}
	}
	if err := spec.Validate(); err != nil {
		return cfg, fmt.Errorf("cluster: %w", err)
	}
	cfg.Cluster = spec
	if o.duration <= 0 {
		return cfg, fmt.Errorf("-duration %s: want a positive duration", o.duration)
	}
	counts, err := parseWorkers(o.workers)
	if err != nil {
		return cfg, err
	}
	o.workerCounts = counts
	if len(counts) > 1 && o.compare != "" {
		return cfg, fmt.Errorf("-compare with -workers %s: give one worker count to compare, or drop -compare", o.workers)
	}
	var tr *trace.Trace
	switch {
	case o.traceFile != "" && o.generate != "":
		return cfg, errors.New("-trace and -generate: give one")
	case o.traceFile != "":
		if tr, err = readTrace(o.traceFile); err != nil {
			return cfg, fmt.Errorf("-trace: %w", err)
		}
	case (o.generate == "google2019" || o.generate == "alibaba2018") && (o.load <= 0 || o.load > 2):
		return cfg, fmt.Errorf("-load %g: want more than 0 and at most 2", o.load)
	case o.generate == "google2019" || o.generate == "alibaba2018":
		if tr, err = generateTrace(o.generate, o.seed, o.duration, spec, o.load); err != nil {
			return cfg, fmt.Errorf("-generate: %w", err)
		}
	case o.generate != "":
		return cfg, fmt.Errorf("-generate %q: want google2019 or alibaba2018", o.generate)
	default:
		return cfg, errors.New("no workload: give -trace FILE or -generate google2019|alibaba2018")
	}
	cfg.Trace, cfg.Duration, cfg.Workers, cfg.Seed = tr, o.duration, counts[0], o.seed
	cfg.Algorithm, cfg.Preemption, cfg.PreferenceScoreLimit = o.algorithm, o.preemption, o.scoreLimit
	cfg.NodeFailures, cfg.NodeDowntime, cfg.StartDelay = o.nodeFailures, o.downtime, o.startDelay
	cfg.Costs = fast.Costs{Eval: o.costEval, Placement: o.costPlacement, Node: o.costNode, Apply: o.cost}
	if o.numa != "" {
		if cfg, err = applyOverrides(cfg, "numa="+o.numa); err != nil {
			return cfg, fmt.Errorf("-numa: %w", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func writeReportFile(path string, runs []*report.Report) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeHTML(fh, runs...); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// printSimRun prints the report (and the comparison), as JSON or text.
func (m *Meta) printSimRun(a, b *report.Report, asJSON bool) int {
	if asJSON {
		var v any = a
		if b != nil {
			v = struct {
				A      *report.Report `json:"a"`
				B      *report.Report `json:"b"`
				Deltas []report.Delta `json:"deltas"`
			}{a, b, report.Compare(a, b)}
		}
		enc := json.NewEncoder(m.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return m.errorf("encoding the report: %v", err)
		}
		return exitOK
	}
	writeSimSummary(m.Out, a)
	if len(a.WorkerSweep) > 0 {
		fmt.Fprintln(m.Out)
		writeSweep(m.Out, a.WorkerSweep)
	}
	if b != nil {
		fmt.Fprintln(m.Out, "\nCompared with:")
		writeSimSummary(m.Out, b)
		fmt.Fprintln(m.Out)
		if err := report.WriteDeltas(m.Out, report.Compare(a, b)); err != nil {
			return m.errorf("printing the deltas: %v", err)
		}
	}
	return exitOK
}

// writeSimSummary prints a report's headline numbers.
func writeSimSummary(w io.Writer, r *report.Report) {
	keys := make([]string, 0, len(r.Config))
	for k := range r.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%-28s %s\n", k, r.Config[k])
	}
	fmt.Fprintf(w, "%-28s %s simulated in %s\n", "time", r.SimulatedTime, r.WallTime.Round(time.Millisecond))
	fmt.Fprintf(w, "%-28s %d jobs, %d placements, %d rejections\n", "work", r.Jobs, r.Placements, r.Rejections)
	fmt.Fprintf(w, "%-28s %d preemptions, %d evictions\n", "disruption", r.Preemptions, r.Evictions)
	fmt.Fprintf(w, "%-28s %d evals, %d conflicts, %d retries (%d workers)\n", "scheduling", r.Evals, r.PlanConflicts, r.Retries, r.Workers)
	fmt.Fprintf(w, "%-28s %d\n", "blocked evals at peak", r.BlockedEvalsPeak)
	fmt.Fprintf(w, "%-28s p50 %s p90 %s p99 %s\n", "queue delay", r.QueueDelay.P50, r.QueueDelay.P90, r.QueueDelay.P99)
	fmt.Fprintf(w, "%-28s p50 %s p90 %s p99 %s\n", "placement latency", r.PlacementLatency.P50, r.PlacementLatency.P90, r.PlacementLatency.P99)
	if n := len(r.Utilization); n > 0 {
		s := r.Utilization[n-1]
		fmt.Fprintf(w, "%-28s cpu %.1f%% memory %.1f%% cores %.1f%%, %d stranded cores\n", "utilization at end",
			100*s.CPU, 100*s.Memory, 100*s.Cores, s.StrandedCores)
	}
	if s := r.AtFirstRejection; s != nil {
		fmt.Fprintf(w, "%-28s cpu %.1f%% memory %.1f%% cores %.1f%% (at %s)\n", "utilization at 1st reject",
			100*s.CPU, 100*s.Memory, 100*s.Cores, s.Time)
	}
}
