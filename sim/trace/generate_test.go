package trace

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// sample generates the large traces the distribution tests measure.
func sample(t *testing.T, kind string, nodes int) (*Trace, Options) {
	t.Helper()
	opt := Options{Seed: 7, Nodes: nodes, Racks: 10, NodeClasses: []string{"a", "b"}}
	tr, err := Generate(kind, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tr, opt.withDefaults()
}

// sampleNodes keeps each kind's sample to some 50k-150k jobs.
var sampleNodes = map[string]int{"google2019": 1000, "alibaba2018": 300}

func TestGenerateDeterministic(t *testing.T) {
	for _, kind := range Kinds {
		opt := Options{Seed: 42, Nodes: 30, Duration: 6 * time.Hour}
		a, _ := Generate(kind, opt)
		b, _ := Generate(kind, opt)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed, different traces", kind)
		}
		opt.Seed = 43
		c, _ := Generate(kind, opt)
		if reflect.DeepEqual(a.Jobs, c.Jobs) {
			t.Errorf("%s: seeds 42 and 43 gave the same trace", kind)
		}
		if a.Source != kind+" seed 42" {
			t.Errorf("source %q", a.Source)
		}
	}
}

func TestGenerateValidAndSorted(t *testing.T) {
	for _, kind := range Kinds {
		tr, _ := sample(t, kind, 20)
		if err := tr.Validate(); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
		o := Options{Nodes: 20}.withDefaults()
		for _, j := range tr.Jobs {
			if j.MemoryMB > o.NodeMemoryMB || j.CPU > o.NodeCPUMHz || j.Cores > o.NodeCores {
				t.Fatalf("%s: job %s does not fit a node: %+v", kind, j.ID, j)
			}
			if j.Count > 1 && float64(j.Count*j.MemoryMB) > MaxJobShare*float64(o.Nodes*o.NodeMemoryMB) {
				t.Fatalf("%s: job %s asks more than %.0f%% of the cluster: %+v", kind, j.ID, 100*MaxJobShare, j)
			}
		}
		if !slices.IsSortedFunc(tr.Jobs, func(a, b Job) int { return cmpDuration(a.Arrival, b.Arrival) }) {
			t.Errorf("%s: not sorted by arrival", kind)
		}
	}
}

func TestGenerateLoad(t *testing.T) {
	for _, kind := range Kinds {
		p, _ := ParamsFor(kind)
		for _, c := range []Options{
			{Seed: 1, Nodes: 50},
			{Seed: 2, Nodes: 200, Load: 0.4, Duration: 6 * time.Hour},
			{Seed: 3, Nodes: 20, Load: 1.2, NodeMemoryMB: 16384, NodeCores: 8},
		} {
			tr, err := Generate(kind, c)
			if err != nil {
				t.Fatal(err)
			}
			o := c.withDefaults()
			got := OfferedLoad(tr, o.Nodes, o.NodeMemoryMB, o.Duration)
			if math.Abs(got-o.Load)/o.Load > 0.10 {
				t.Errorf("%s %+v: load %.3f, want %.3f within 10%%", kind, c, got, o.Load)
			}
			svc := &Trace{}
			for _, j := range tr.Jobs {
				if j.Type == "service" {
					svc.Jobs = append(svc.Jobs, j)
				}
			}
			share := OfferedLoad(svc, o.Nodes, o.NodeMemoryMB, o.Duration) / got
			if math.Abs(share-p.ServiceShare) > 0.05 {
				t.Errorf("%s %+v: service share of load %.3f, want %.2f", kind, c, share, p.ServiceShare)
			}
		}
	}
}

func TestGenerateDistributions(t *testing.T) {
	for _, kind := range Kinds {
		p, _ := ParamsFor(kind)
		tr, o := sample(t, kind, sampleNodes[kind])
		var batch, svc []Job
		for _, j := range tr.Jobs {
			if j.Type == "batch" {
				batch = append(batch, j)
			} else {
				svc = append(svc, j)
			}
		}
		t.Logf("%s: %d jobs (%d services)", kind, len(tr.Jobs), len(svc))
		if len(batch) < 10*len(svc) {
			t.Errorf("%s: %d batch jobs vs %d services: batch should dominate job counts", kind, len(batch), len(svc))
		}

		// Batch run times: lognormal median and log-sigma.
		logs := make([]float64, len(batch))
		for i, j := range batch {
			logs[i] = math.Log(float64(j.Duration))
		}
		med, sd := median(logs), stddev(logs)
		within(t, kind+" batch duration median", math.Exp(med), p.BatchDuration.Median, 0.10)
		within(t, kind+" batch duration log-sigma", sd, p.BatchDuration.Sigma, 0.10)

		// Mean run time: a lognormal's mean, less what the clip at
		// MaxDuration cuts off.
		durs := make([]float64, len(batch))
		for i, j := range batch {
			durs[i] = float64(j.Duration)
		}
		within(t, kind+" batch duration mean", mean(durs), clippedLogNormalMean(p.BatchDuration, float64(MaxDuration)), 0.10)

		// Batch memory: lognormal median and mean as a fraction of the node.
		mem := make([]float64, len(batch))
		for i, j := range batch {
			mem[i] = float64(j.MemoryMB)
		}
		m := p.BatchSizes.Memory
		within(t, kind+" batch memory median", median(mem), m.Median*float64(o.NodeMemoryMB), 0.10)
		within(t, kind+" batch memory mean", mean(mem), clippedLogNormalMean(m, 1)*float64(o.NodeMemoryMB), 0.10)

		// Counts: discrete Pareto, P(1) = 1 - 2^-alpha; most jobs 1-10.
		ones, small, biggest := 0, 0, 0
		for _, j := range batch {
			if j.Count == 1 {
				ones++
			}
			if j.Count <= 10 {
				small++
			}
			biggest = max(biggest, j.Count)
		}
		n := float64(len(batch))
		within(t, kind+" share of single-allocation batch jobs", float64(ones)/n, 1-math.Pow(2, -p.BatchCount.Alpha), 0.05)
		if float64(small)/n < 0.75 || biggest < 500 {
			t.Errorf("%s: %.2f of batch jobs have <= 10 allocations, largest %d: want most small and a few in the 1000s", kind, float64(small)/n, biggest)
		}

		// Priority bands' shares.
		bandShares(t, kind+" batch", batch, p.BatchBands)
		bandShares(t, kind+" service", svc, p.ServiceBands)

		// Cores and NUMA on services.
		cores, require := 0, 0
		for _, j := range svc {
			if j.Cores > 0 {
				cores++
				if j.NUMA == "require" {
					require++
				}
			}
		}
		if got := float64(cores) / float64(len(svc)); math.Abs(got-p.CoresShare) > 0.03 {
			t.Errorf("%s: %.3f of services ask cores, want %.2f", kind, got, p.CoresShare)
		}
		within(t, kind+" numa require share", float64(require)/float64(cores), p.NUMARequireShare, 0.25)
	}
}

// TestGoogleHeavyTail: the paper's top 1% of jobs hold >99% of the
// resources; clipped to a cluster the top 1% still hold most.
func TestGoogleHeavyTail(t *testing.T) {
	tr, o := sample(t, "google2019", 1000)
	var work []float64
	for i := range tr.Jobs {
		if tr.Jobs[i].Type == "batch" {
			work = append(work, jobWork(&tr.Jobs[i], o.Duration.Seconds()))
		}
	}
	slices.Sort(work)
	var total, top float64
	for i, w := range work {
		total += w
		if i >= len(work)*99/100 {
			top += w
		}
	}
	t.Logf("top 1%% of batch jobs ask %.1f%% of batch memory-time", 100*top/total)
	if top/total < 0.5 {
		t.Errorf("top 1%% of batch jobs ask %.2f of the work, want > 0.5", top/total)
	}
}

// TestAlibabaDiurnal: batch arrivals follow a daily cycle; with
// amplitude A the day's rising half gets (1+2A/pi)/(1-2A/pi) times the
// arrivals of the other.
func TestAlibabaDiurnal(t *testing.T) {
	tr, _ := sample(t, "alibaba2018", 100)
	var peak, trough float64
	for _, j := range tr.Jobs {
		if j.Type != "batch" {
			continue
		}
		if j.Arrival < 12*time.Hour {
			peak++
		} else {
			trough++
		}
	}
	a := Alibaba2018.Diurnal
	within(t, "alibaba day/night arrival ratio", peak/trough, (1+2*a/math.Pi)/(1-2*a/math.Pi), 0.10)
}

func TestGenerateErrors(t *testing.T) {
	for _, c := range []struct {
		kind string
		opt  Options
		want string
	}{
		{"borg", Options{}, `unknown generator "borg"`},
		{"google2019", Options{Nodes: -1}, "nodes -1"},
		{"google2019", Options{Load: -0.5}, "load -0.5"},
		{"alibaba2018", Options{Duration: time.Second}, "duration 1s"},
		{"alibaba2018", Options{NodeMemoryMB: 10}, "node memory 10 MB"},
		{"alibaba2018", Options{Racks: -2}, "racks -2"},
	} {
		_, err := Generate(c.kind, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: error %v, want %q", c.kind, c.opt, err, c.want)
		}
	}
}

func bandShares(t *testing.T, what string, jobs []Job, bands []Band) {
	t.Helper()
	var total float64
	for _, b := range bands {
		total += b.Share
	}
	for _, b := range bands {
		in := 0
		for _, j := range jobs {
			if j.Priority >= b.Lo && j.Priority <= b.Hi {
				in++
			}
		}
		got := float64(in) / float64(len(jobs))
		if math.Abs(got-b.Share/total) > 0.02 {
			t.Errorf("%s: band %s (%d-%d) has %.3f of jobs, want %.3f", what, b.Name, b.Lo, b.Hi, got, b.Share/total)
		}
	}
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Abs(want) {
		t.Errorf("%s = %.4g, want %.4g within %.0f%%", what, got, want, 100*tol)
	}
}

// clippedLogNormalMean is E[min(X, c)] for X lognormal.
func clippedLogNormalMean(l LogNormal, c float64) float64 {
	mu, s := math.Log(l.Median), l.Sigma
	phi := func(x float64) float64 { return 0.5 * (1 + math.Erf(x/math.Sqrt2)) }
	z := (math.Log(c) - mu) / s
	return math.Exp(mu+s*s/2)*phi(z-s) + c*(1-phi(z))
}

func mean(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x
	}
	return m / float64(len(xs))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func stddev(xs []float64) float64 {
	var m, v float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(xs)))
}
