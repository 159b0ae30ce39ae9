package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Options size a generated workload to a cluster.
type Options struct {
	// Seed makes the trace: the same seed and options give the same trace.
	Seed int64
	// Duration is the trace's span (default 24h).
	Duration time.Duration
	// Nodes is the cluster's node count (default 100).
	Nodes int
	// Load is the target average fraction of the cluster's memory asked
	// over Duration (default 0.7); see OfferedLoad.
	Load float64
	// NodeMemoryMB and NodeCores are one node's size (defaults 65536 MB,
	// 32 cores); NodeCPUMHz its total CPU (default NodeCores*2400).
	NodeMemoryMB int
	NodeCores    int
	NodeCPUMHz   int
	// Racks is the cluster's rack count; 0 leaves out the
	// distinct_property ${meta.rack} constraints, which need it.
	Racks int
	// NodeClasses, if set, are the ${node.class} values some jobs are
	// constrained to (Params.ClassShare).
	NodeClasses []string
}

// Defaults of Options' zero fields.
const (
	DefaultDuration     = 24 * time.Hour
	DefaultNodes        = 100
	DefaultLoad         = 0.7
	DefaultNodeMemoryMB = 65536
	DefaultNodeCores    = 32
	DefaultCoreMHz      = 2400
	// MaxJobShare is the most of the cluster's memory (and cores) one
	// job asks: counts are clipped so a job fits the cluster.
	MaxJobShare = 0.2
	// RackLimit is the per-rack allocation limit of distinct_property
	// constraints.
	RackLimit = 2
)

func (o Options) withDefaults() Options {
	if o.Duration == 0 {
		o.Duration = DefaultDuration
	}
	if o.Nodes == 0 {
		o.Nodes = DefaultNodes
	}
	if o.Load == 0 {
		o.Load = DefaultLoad
	}
	if o.NodeMemoryMB == 0 {
		o.NodeMemoryMB = DefaultNodeMemoryMB
	}
	if o.NodeCores == 0 {
		o.NodeCores = DefaultNodeCores
	}
	if o.NodeCPUMHz == 0 {
		o.NodeCPUMHz = o.NodeCores * DefaultCoreMHz
	}
	return o
}

// Validate names the first bad option.
func (o Options) Validate() error {
	switch {
	case o.Duration < time.Minute:
		return fmt.Errorf("trace: duration %s is shorter than 1m", o.Duration)
	case o.Nodes < 1:
		return fmt.Errorf("trace: nodes %d is less than 1", o.Nodes)
	case o.Load <= 0 || o.Load > 10:
		return fmt.Errorf("trace: load %g is not in (0, 10]", o.Load)
	case o.NodeMemoryMB < 256:
		return fmt.Errorf("trace: node memory %d MB is less than 256", o.NodeMemoryMB)
	case o.NodeCores < 1:
		return fmt.Errorf("trace: node cores %d is less than 1", o.NodeCores)
	case o.NodeCPUMHz < 100:
		return fmt.Errorf("trace: node cpu %d MHz is less than 100", o.NodeCPUMHz)
	case o.Racks < 0:
		return fmt.Errorf("trace: racks %d is negative", o.Racks)
	}
	return nil
}

// Generate makes a trace of kind "google2019" or "alibaba2018" (Kinds),
// sized by opt. It is deterministic: one PCG source seeded from
// opt.Seed drives every draw.
func Generate(kind string, opt Options) (*Trace, error) {
	p, err := ParamsFor(kind)
	if err != nil {
		return nil, err
	}
	return GenerateWith(p, opt)
}

// GenerateWith makes a trace from explicit parameters (a variant of a
// built-in set, say).
//
// Services: a standing set arrives during the ramp and runs to the end;
// jobs are drawn until they ask ServiceShare of the memory load (the
// last one's count is cut to land on it). Batch: Poisson arrivals (with
// the diurnal cycle) at a rate estimated from a pilot sample, drawn
// half again as many as needed, then independently thinned (a thinned
// Poisson process is Poisson) until they ask the rest of the load.
func GenerateWith(p Params, opt Options) (*Trace, error) {
	opt = opt.withDefaults()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	g := &generator{p: p, o: opt, rng: rand.New(rand.NewPCG(uint64(opt.Seed), 0x5eed_c0de_17))}
	g.span = opt.Duration.Seconds()
	g.clusterMem = float64(opt.Nodes) * float64(opt.NodeMemoryMB)
	target := opt.Load * g.clusterMem * g.span

	jobs, serviceWork := g.services(p.ServiceShare * target)
	jobs = append(jobs, g.batch(target-serviceWork)...)

	slices.SortStableFunc(jobs, func(a, b Job) int { return cmpDuration(a.Arrival, b.Arrival) })
	for i := range jobs {
		jobs[i].ID = fmt.Sprintf("%s-%07d", jobs[i].Type, i)
	}
	return &Trace{Source: fmt.Sprintf("%s seed %d", p.Name, opt.Seed), Jobs: jobs}, nil
}

func cmpDuration(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// OfferedLoad is the average fraction of the cluster's memory that t's
// jobs ask over [0, span]: the sum over jobs of count x memory x the
// part of their run inside the span (a duration of 0 runs to the end),
// over nodes x node memory x span. It ignores whether the jobs fit.
func OfferedLoad(t *Trace, nodes, nodeMemoryMB int, span time.Duration) float64 {
	var w float64
	for i := range t.Jobs {
		w += jobWork(&t.Jobs[i], span.Seconds())
	}
	return w / (float64(nodes) * float64(nodeMemoryMB) * span.Seconds())
}

// jobWork is a job's memory x seconds asked inside [0, span].
func jobWork(j *Job, span float64) float64 {
	left := span - j.Arrival.Seconds()
	if left <= 0 {
		return 0
	}
	run := left
	if j.Duration > 0 {
		run = min(j.Duration.Seconds(), left)
	}
	return float64(j.Count) * float64(j.MemoryMB) * run
}

type generator struct {
	p          Params
	o          Options
	rng        *rand.Rand
	span       float64 // seconds
	clusterMem float64 // MB
}

// services draws the standing services until they ask budget MB*s.
func (g *generator) services(budget float64) ([]Job, float64) {
	ramp := min(g.p.ServiceRamp, g.o.Duration/10).Seconds()
	var (
		jobs []Job
		work float64
	)
	for work < budget {
		j := g.service(time.Duration(g.rng.Float64() * ramp * float64(time.Second)))
		w := jobWork(&j, g.span)
		if work+w > budget {
			per := w / float64(j.Count)
			j.Count = max(1, int(math.Ceil((budget-work)/per)))
			w = per * float64(j.Count)
		}
		jobs = append(jobs, j)
		work += w
	}
	return jobs, work
}

// batch draws Poisson batch arrivals asking about budget MB*s.
func (g *generator) batch(budget float64) []Job {
	if budget <= 0 {
		return nil
	}
	type cand struct {
		job  Job
		mark float64
		work float64
	}
	var cands []cand
	var total float64
	mean := g.pilotWork()
	for round := 0; total < budget && round < 8; round++ {
		rate := 1.5 * (budget - total) / (mean * g.span) // jobs per second
		at := g.arrivals(rate)
		cands = slices.Grow(cands, len(at))
		for _, at := range at {
			j := g.batchJob(at)
			w := jobWork(&j, g.span)
			cands = append(cands, cand{job: j, mark: g.rng.Float64(), work: w})
			total += w
		}
	}
	// Keep the jobs with the smallest marks until the budget is met:
	// bucket the marks, find the bucket where the budget is crossed and
	// sort only that one.
	const nb = 1 << 12
	var bucketWork [nb]float64
	for i := range cands {
		bucketWork[int(cands[i].mark*nb)] += cands[i].work
	}
	cut, below := nb, 0.0
	for b := range nb {
		if below+bucketWork[b] >= budget {
			cut = b
			break
		}
		below += bucketWork[b]
	}
	var edge []int
	for i := range cands {
		if int(cands[i].mark*nb) == cut {
			edge = append(edge, i)
		}
	}
	slices.SortFunc(edge, func(a, b int) int { return cmpFloat(cands[a].mark, cands[b].mark) })
	keep := make(map[int]bool, len(edge))
	for _, i := range edge {
		if below >= budget {
			break
		}
		keep[i] = true
		below += cands[i].work
	}
	out := make([]Job, 0, len(cands))
	for i := range cands {
		if b := int(cands[i].mark * nb); b < cut || keep[i] {
			out = append(out, cands[i].job)
		}
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// pilotWork estimates a batch job's mean work (MB*s) from a sample drawn
// with its own source, so the main stream does not depend on it.
func (g *generator) pilotWork() float64 {
	main := g.rng
	defer func() { g.rng = main }()
	g.rng = rand.New(rand.NewPCG(uint64(g.o.Seed), 0x9170_7000))
	const n = 4000
	var sum float64
	for i := 0; i < n; i++ {
		at := time.Duration(g.rng.Float64() * g.span * float64(time.Second))
		j := g.batchJob(at)
		sum += jobWork(&j, g.span)
	}
	return max(sum/n, 1)
}

// arrivals are Poisson arrival times over the span at mean rate (per
// second), modulated by the diurnal cycle (Lewis-Shedler thinning).
func (g *generator) arrivals(rate float64) []time.Duration {
	a := g.p.Diurnal
	peak := rate * (1 + a)
	var out []time.Duration
	for t := g.rng.ExpFloat64() / peak; t < g.span; t += g.rng.ExpFloat64() / peak {
		if a > 0 && g.rng.Float64()*(1+a) > 1+a*math.Sin(2*math.Pi*t/86400) {
			continue
		}
		out = append(out, time.Duration(t*float64(time.Second)))
	}
	return out
}
