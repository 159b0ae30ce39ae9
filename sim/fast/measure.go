package fast

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/nomadish/nomadish/sim/report"
)

// utilization is the cluster now: the allocated share of the ready nodes'
// cpu, memory and reservable cores, and their stranded cores (free cores
// on nodes none of whose NUMA nodes has as many free as the trace's
// smallest "require" ask).
func (s *Sim) utilization() report.Sample {
	smp := report.Sample{Time: s.now, BlockedEvals: s.blocked.Stats().TotalBlocked}
	var cpu, cpuCap, mem, memCap int64
	var cores, coresCap int
	for _, n := range s.nodeList {
		if !n.ready {
			continue
		}
		smp.NodesAvailable++
		cpu, cpuCap, mem, memCap = cpu+n.cpu, cpuCap+n.cpuCap, mem+n.mem, memCap+n.memCap
		free, most := 0, 0
		for _, f := range n.freePerNUMA {
			free += f
			most = max(most, f)
		}
		cores, coresCap = cores+n.cores-free, coresCap+n.cores
		if s.minRequire > 0 && most < s.minRequire {
			smp.StrandedCores += free
		}
	}
	smp.CPU, smp.Memory, smp.Cores = share(cpu, cpuCap), share(mem, memCap), share(int64(cores), int64(coresCap))
	for _, n := range s.nodeList {
		smp.RunningAllocs += len(n.live)
	}
	smp.PendingAllocs = s.pending
	return smp
}

func share(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// sample records utilization and throughput.
func (s *Sim) sample() {
	s.samples = append(s.samples, s.utilization())
	prev := report.Rate{}
	if len(s.throughput) > 0 {
		prev = s.throughput[len(s.throughput)-1]
	}
	r := report.Rate{At: s.now, Placed: s.placements}
	if dt := (s.now - prev.At).Seconds(); dt > 0 {
		r.PerSecond = float64(r.Placed-prev.Placed) / dt
	}
	s.throughput = append(s.throughput, r)
}

// percentiles of nanosecond durations.
func percentiles(ns []time.Duration) report.Percentiles {
	p := report.Percentiles{Count: len(ns)}
	if len(ns) == 0 {
		return p
	}
	d := slices.Clone(ns)
	slices.Sort(d)
	at := func(q int) time.Duration { return d[(len(d)-1)*q/100] }
	p.P50, p.P90, p.P99, p.Max = at(50), at(90), at(99), d[len(d)-1]
	return p
}

// report assembles the run's Report (WallTime is the caller's).
func (s *Sim) report() *report.Report {
	c := s.cfg
	return &report.Report{
		Mode: "fast",
		Config: map[string]string{
			"trace": c.Trace.Source, "trace_jobs": strconv.Itoa(len(c.Trace.Jobs)),
			"nodes": strconv.Itoa(len(s.nodeList)), "cluster": clusterDesc(c),
			"workers": strconv.Itoa(c.Workers), "algorithm": c.Algorithm,
			"preemption": strconv.FormatBool(c.Preemption), "seed": strconv.FormatUint(c.Seed, 10),
			"node_failures_per_node_day": strconv.FormatFloat(c.NodeFailures, 'g', -1, 64),
			"costs":                      fmt.Sprintf("eval=%s placement=%s node=%s apply=%s", c.Costs.Eval, c.Costs.Placement, c.Costs.Node, c.Costs.Apply),
		},
		SimulatedTime: c.Duration,
		Jobs:          s.jobCount, Placements: s.placements, Rejections: s.rejections,
		Preemptions: s.preemptions, Evictions: s.evictions,
		PlanConflicts: s.conflicts, Retries: s.retries, Workers: c.Workers,
		BlockedEvalsPeak: s.blockedPeak, Evals: s.evals,
		Utilization: s.samples, AtFirstRejection: s.atFirstRejection,
		QueueDelay: percentiles(s.queueDelays), PlacementLatency: percentiles(s.placeLatencies),
		Throughput: s.throughput,
	}
}

// clusterDesc describes the cluster's shape in a line.
func clusterDesc(c Config) string {
	spec := c.Cluster.WithDefaults()
	out := fmt.Sprintf("%d nodes, %d dc, %d racks/dc", spec.Nodes, len(spec.Datacenters), spec.Racks)
	for _, cl := range spec.Classes {
		out += fmt.Sprintf("; %s w%d %dx%dx%d@%dMHz/%dMiB", cl.Name, cl.Weight, cl.Sockets, cl.CoresPerSocket, cl.ThreadsPerCore, cl.MHz, cl.MemoryMB)
	}
	return out
}
