package cli

// `sim cluster`: the simulator's full mode (sim/full), real servers and
// simulated clients over the real RPC; website/sim.md "Full mode and C1M".

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/nomadish/nomadish/sim/full"
	"github.com/nomadish/nomadish/sim/report"
)

// simClusterCommand runs full mode and prints its report (JSON with
// -json). It exits 0 only when every requested allocation was placed and
// reported running.
func simClusterCommand(m *Meta, args []string) int {
	f := m.newLocalFlags("sim cluster", "[options]")
	cfg := full.DefaultConfig()
	f.IntVar(&cfg.Servers, "servers", cfg.Servers, "servers to run: 1 or 3 (subprocesses of this binary, raft on disk)")
	f.IntVar(&cfg.Nodes, "nodes", cfg.Nodes, "simulated client nodes")
	f.IntVar(&cfg.Allocs, "allocs", cfg.Allocs, "allocations to place, over -jobs jobs")
	f.IntVar(&cfg.Jobs, "jobs", cfg.Jobs, "jobs to submit (at most 10,000 allocations each)")
	f.StringVar(&cfg.Type, "type", cfg.Type, "job type: batch or service")
	f.Int64Var(&cfg.NodeCPU, "node-cpu", 0, "each node's CPU MHz, one per allocation (0: room for all; less blocks placements, to watch blocked evals)")
	f.StringVar(&cfg.DataDir, "data-dir", "", "directory for the servers' data and logs, kept after the run (default: a temporary one, removed)")
	f.IntVar(&cfg.Conns, "conns", cfg.Conns, "RPC connections per server the simulated nodes share (0: one per 250 nodes, at least 4)")
	f.DurationVar(&cfg.RunFor, "run-for", 0, "batch allocations complete this long after they run (0: they keep running)")
	f.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "give up when not every allocation runs by then")
	f.IntVar(&cfg.ProfileSeconds, "profile", 10, "seconds of CPU profile of the leader, from when the jobs are submitted (0: none)")
	f.StringVar(&cfg.CPUProfile, "cpuprofile", "", "save the leader's CPU profile (pprof, -profile seconds) here")
	f.StringVar(&cfg.HeapProfile, "heapprofile", "", "save the leader's heap profile (pprof) here once every allocation runs")
	f.StringVar(&cfg.ServerGOGC, "server-gogc", "", "GOGC of the server processes: a percentage or off (default: this process's environment)")
	f.StringVar(&cfg.ServerMemLimit, "server-memlimit", "", "GOMEMLIMIT of the server processes, e.g. 14GiB (default: this process's environment)")
	fleetProfile := f.String("fleet-cpuprofile", "", "save a CPU profile (pprof) of this process, the simulated clients, for the whole run here")
	asJSON := f.Bool("json", false, "print the report as JSON")
	quiet := f.Bool("quiet", false, "no progress lines on stderr")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	bin, err := os.Executable()
	if err != nil {
		return m.errorf("finding this binary to run the servers: %v", err)
	}
	cfg.Binary = bin
	if !*quiet {
		cfg.Progress = func(format string, args ...any) { fmt.Fprintf(m.Err, "sim: "+format+"\n", args...) }
	}
	if *fleetProfile != "" {
		stop, err := startCPUProfile(*fleetProfile)
		if err != nil {
			return m.errorf("-fleet-cpuprofile: %v", err)
		}
		defer stop()
	}
	rep, runErr := full.Run(cfg)
	if rep == nil {
		return m.errorf("running the simulation: %v", runErr)
	}
	if *asJSON {
		enc := json.NewEncoder(m.Out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printFullReport(m, rep)
	}
	if runErr != nil {
		if !errors.Is(runErr, full.ErrIncomplete) {
			return m.errorf("measuring the servers: %v", runErr)
		}
		fmt.Fprintf(m.Err, "Error: %v\n", runErr)
		return exitError
	}
	return exitOK
}

func printFullReport(m *Meta, r *report.Report) {
	s := r.Server
	secs := r.WallTime.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(r.Placements) / secs
	}
	fmt.Fprintf(m.Out, "Servers          = %d\nNodes            = %d\nJobs             = %d\n", s.Servers, s.Nodes, r.Jobs)
	fmt.Fprintf(m.Out, "Placed, running  = %d in %s (%.0f/s)\n", r.Placements, r.WallTime.Round(time.Millisecond), rate)
	l := r.PlacementLatency
	fmt.Fprintf(m.Out, "Submit->running  = p50 %s, p90 %s, p99 %s, max %s\n", l.P50, l.P90, l.P99, l.Max)
	fmt.Fprintf(m.Out, "Blocked evals    = %d at peak\n", r.BlockedEvalsPeak)
	fmt.Fprintf(m.Out, "Leader RSS       = %.1f MiB (%.1f MiB per 100k allocations)\n", mib(s.RSSBytes), mib(s.RSSPer100kAllocs))
	fmt.Fprintf(m.Out, "Raft log         = %.1f MiB\nSnapshot         = %.1f MiB\n", mib(uint64(s.RaftLogBytes)), mib(uint64(s.SnapshotBytes)))
	fmt.Fprintf(m.Out, "Heartbeats       = %.1f/s\n", s.HeartbeatsPerSec)
	if s.CPUSeconds > 0 && r.Placements > 0 {
		fmt.Fprintf(m.Out, "Leader CPU       = %.1f s (%.2f ms per allocation)\n", s.CPUSeconds, s.CPUSeconds*1000/float64(r.Placements))
	}
	if len(r.Throughput) > 0 {
		fmt.Fprintln(m.Out, "\nPlacements over time")
		step := max(len(r.Throughput)/20, 1)
		for i := 0; i < len(r.Throughput); i += step {
			t := r.Throughput[i]
			fmt.Fprintf(m.Out, "  %8s %9d %9.0f/s\n", t.At.Round(time.Second), t.Placed, t.PerSecond)
		}
	}
	if len(s.Profile) > 0 {
		fmt.Fprintln(m.Out, "\nLeader CPU profile (top functions)")
		for _, p := range s.Profile {
			fmt.Fprintln(m.Out, "  "+p)
		}
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// startCPUProfile profiles this process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
