package trace

import (
	"fmt"
	"time"
)

// Params are a generator's distributions. Google2019 and Alibaba2018 are
// the built-in ones; website/sim.md ("Traces") gives the source of each
// figure and says which are assumptions. Sizes are fractions of one
// node (the published traces normalise requests to the largest machine),
// so a generated workload scales with Options' node size.
type Params struct {
	// Name is the Generate kind.
	Name string
	// ServiceShare is the share of the memory load asked by services.
	ServiceShare float64
	// ServiceRamp: the standing services arrive, uniformly, in
	// [0, min(ServiceRamp, Duration/10)); they run to the end.
	ServiceRamp time.Duration
	// ServiceCount and BatchCount are allocations per job.
	ServiceCount, BatchCount Pareto
	// ServiceSizes and BatchSizes give per-allocation requests: either
	// discrete steps or, when Steps is empty, lognormal memory with CPU
	// proportional to it.
	ServiceSizes, BatchSizes Sizes
	// BatchDuration is each batch allocation's run time (clipped to
	// [MinDuration, MaxDuration]).
	BatchDuration LogNormal
	// ServiceBands and BatchBands are the Nomad priority bands (1-100)
	// the source's priority tiers map to, with their shares of jobs.
	ServiceBands, BatchBands []Band
	// Diurnal is the amplitude (0-1) of the batch arrival rate's daily
	// cycle: rate(t) = mean * (1 + Diurnal*sin(2*pi*t/24h)).
	Diurnal float64
	// CoresShare of services ask whole cores (CoreSizes), with NUMA
	// "require" for NUMARequireShare of those and "prefer" for the rest.
	CoresShare       float64
	CoreSizes        []Weighted
	NUMARequireShare float64
	// SpreadShare of services spread over ${meta.rack};
	// DistinctHostsShare have distinct_hosts; RackLimitShare have
	// distinct_property ${meta.rack} (at most 2 per rack) - of services;
	// ClassShare of all jobs are constrained to one ${node.class} (only
	// when Options.NodeClasses is set).
	SpreadShare, DistinctHostsShare, RackLimitShare, ClassShare float64
}

// MinDuration and MaxDuration clip batch run times.
const (
	MinDuration = time.Second
	MaxDuration = 7 * 24 * time.Hour
)

// Pareto is a discrete Pareto (Zipf-like) count: floor(U^(-1/Alpha)),
// at least 1, at most Max (and what fits the cluster, see Options).
type Pareto struct {
	Alpha float64
	Max   int
}

// LogNormal is a lognormal distribution given by its median and the
// standard deviation of its logarithm.
type LogNormal struct {
	Median float64
	Sigma  float64
}

// Sizes are per-allocation requests as fractions of a node.
type Sizes struct {
	// Steps, when set, are the discrete request sizes and their weights.
	Steps []Step
	// Memory is the lognormal memory fraction when Steps is empty.
	Memory LogNormal
	// CPUPerMemory multiplies the memory fraction to give the CPU
	// fraction (lognormal: CPU and memory asks are correlated, not equal).
	CPUPerMemory LogNormal
}

// Step is one discrete request size: CPU and memory fractions of a node.
type Step struct {
	CPU, Memory float64
	Weight      float64
}

// Band is a range of Nomad priorities a source's tier maps to.
type Band struct {
	Name   string
	Lo, Hi int
	Share  float64
}

// Weighted is a value with a weight.
type Weighted struct {
	Value  int
	Weight float64
}

// Google2019 follows the Google cluster trace 2019 (Borg, May 2019, 8
// cells) as analysed by Tirmazi et al., "Borg: the Next Generation",
// EuroSys 2020. Borg tiers map to Nomad bands: free (<=99) 1-19,
// best-effort batch (110-115) 20-39, mid (116-119) 40-59, production
// (120-359) 60-89, monitoring (>=360) 90-100.
var Google2019 = Params{
	Name:          "google2019",
	ServiceShare:  0.7,
	ServiceRamp:   10 * time.Minute,
	ServiceCount:  Pareto{Alpha: 1.0, Max: 2000},
	BatchCount:    Pareto{Alpha: 1.0, Max: 5000},
	ServiceSizes:  Sizes{Memory: LogNormal{Median: 0.02, Sigma: 1.2}, CPUPerMemory: LogNormal{Median: 1, Sigma: 0.5}},
	BatchSizes:    Sizes{Memory: LogNormal{Median: 0.006, Sigma: 1.2}, CPUPerMemory: LogNormal{Median: 1.5, Sigma: 0.5}},
	BatchDuration: LogNormal{Median: float64(15 * time.Minute), Sigma: 2.0},
	ServiceBands: []Band{
		{Name: "production", Lo: 60, Hi: 89, Share: 0.9},
		{Name: "monitoring", Lo: 90, Hi: 100, Share: 0.1},
	},
	BatchBands: []Band{
		{Name: "free", Lo: 1, Hi: 19, Share: 0.2},
		{Name: "best-effort batch", Lo: 20, Hi: 39, Share: 0.6},
		{Name: "mid", Lo: 40, Hi: 59, Share: 0.2},
	},
	Diurnal:            0,
	CoresShare:         0.08,
	CoreSizes:          []Weighted{{1, 0.3}, {2, 0.3}, {4, 0.25}, {8, 0.15}},
	NUMARequireShare:   0.5,
	SpreadShare:        0.2,
	DistinctHostsShare: 0.05,
	RackLimitShare:     0.02,
	ClassShare:         0.03,
}

// Alibaba2018 follows Alibaba's cluster-trace-v2018 (about 4,000
// machines, 8 days; online containers managed by Sigma colocated with
// batch DAG jobs managed by Fuxi). Online services are prioritised over
// batch in that cluster; the trace has no priority field, so the bands
// are an assumption.
var Alibaba2018 = Params{
	Name:         "alibaba2018",
	ServiceShare: 0.95,
	ServiceRamp:  10 * time.Minute,
	ServiceCount: Pareto{Alpha: 1.2, Max: 2000},
	BatchCount:   Pareto{Alpha: 0.7, Max: 2000},
	ServiceSizes: Sizes{Steps: []Step{
		// Containers ask 4, 8 or 16 of a 96-core machine's CPUs with
		// memory in proportion: a few discrete shapes.
		{CPU: 4.0 / 96, Memory: 0.015, Weight: 0.3},
		{CPU: 8.0 / 96, Memory: 0.03, Weight: 0.45},
		{CPU: 16.0 / 96, Memory: 0.06, Weight: 0.2},
		{CPU: 32.0 / 96, Memory: 0.12, Weight: 0.05},
	}},
	BatchSizes:    Sizes{Memory: LogNormal{Median: 0.005, Sigma: 0.8}, CPUPerMemory: LogNormal{Median: 3, Sigma: 0.4}},
	BatchDuration: LogNormal{Median: float64(60 * time.Second), Sigma: 1.2},
	ServiceBands: []Band{
		{Name: "online", Lo: 70, Hi: 90, Share: 1},
	},
	BatchBands: []Band{
		{Name: "batch", Lo: 20, Hi: 50, Share: 1},
	},
	Diurnal:            0.5,
	CoresShare:         0.10,
	CoreSizes:          []Weighted{{2, 0.2}, {4, 0.4}, {8, 0.4}},
	NUMARequireShare:   0.5,
	SpreadShare:        0.3,
	DistinctHostsShare: 0.05,
	RackLimitShare:     0.02,
	ClassShare:         0.03,
}

// Kinds are the Generate kinds, in order.
var Kinds = []string{Google2019.Name, Alibaba2018.Name}

// ParamsFor returns a kind's parameters.
func ParamsFor(kind string) (Params, error) {
	switch kind {
	case Google2019.Name:
		return Google2019, nil
	case Alibaba2018.Name:
		return Alibaba2018, nil
	}
	return Params{}, fmt.Errorf("trace: unknown generator %q (want %s or %s)", kind, Kinds[0], Kinds[1])
}
