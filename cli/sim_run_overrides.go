package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/sim/cluster"
	"github.com/nomadish/nomadish/sim/fast"
	"github.com/nomadish/nomadish/sim/trace"
)

// overrideKeys are the keys -compare takes, in the order its errors list them.
const overrideKeys = "nodes, topology, workers, algorithm, preemption, numa, score-limit, node-failures, seed"

// applyOverrides returns cfg with -compare's KEY=VALUE pairs applied. The
// trace is kept as it is: nodes= and topology= replay the same workload on
// a different cluster (the capacity-planning question).
func applyOverrides(cfg fast.Config, list string) (fast.Config, error) {
	for _, kv := range splitList(list) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return cfg, fmt.Errorf("%q: want KEY=VALUE", kv)
		}
		var err error
		switch k {
		case "nodes":
			var n int
			if n, err = strconv.Atoi(v); err == nil && n < 1 {
				err = fmt.Errorf("want at least 1 node")
			}
			cfg.Cluster.Nodes = n
		case "topology":
			var class cluster.Class
			if class, err = cluster.ParseTopology(v); err == nil {
				// One class replaces the cluster's classes (a -cluster
				// file's mix included).
				cfg.Cluster.Classes = []cluster.Class{class}
			}
		case "workers":
			cfg.Workers, err = strconv.Atoi(v)
		case "algorithm":
			cfg.Algorithm = v
		case "preemption":
			cfg.Preemption, err = strconv.ParseBool(v)
		case "score-limit":
			cfg.PreferenceScoreLimit, err = strconv.Atoi(v)
		case "node-failures":
			cfg.NodeFailures, err = strconv.ParseFloat(v, 64)
		case "seed":
			cfg.Seed, err = strconv.ParseUint(v, 10, 64)
		case "numa":
			if v != "none" && v != "prefer" && v != "require" {
				return cfg, fmt.Errorf("numa=%q: want none, prefer or require", v)
			}
			cfg.Trace = withNUMA(cfg.Trace, v)
		default:
			return cfg, fmt.Errorf("unknown key %q (%s)", k, overrideKeys)
		}
		if err != nil {
			return cfg, fmt.Errorf("%s=%q: %w", k, v, err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// withNUMA is a copy of the trace with every core ask's NUMA affinity set.
func withNUMA(tr *trace.Trace, aff string) *trace.Trace {
	out := &trace.Trace{Source: tr.Source + ", numa=" + aff, Jobs: make([]trace.Job, len(tr.Jobs))}
	copy(out.Jobs, tr.Jobs)
	for i := range out.Jobs {
		if out.Jobs[i].Cores > 0 {
			out.Jobs[i].NUMA = aff
		}
	}
	return out
}
