package full

import (
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/nomadish/nomadish/sim/report"
)

func TestJobCountsSplitEvenly(t *testing.T) {
	for _, c := range []struct{ allocs, jobs int }{{5000, 5}, {10, 3}, {1_000_000, 100}, {7, 7}} {
		counts := jobCounts(c.allocs, c.jobs)
		sum, lo, hi := 0, counts[0], counts[0]
		for _, n := range counts {
			sum += n
			lo, hi = min(lo, n), max(hi, n)
		}
		if len(counts) != c.jobs || sum != c.allocs || hi-lo > 1 {
			t.Errorf("jobCounts(%d, %d) = %v", c.allocs, c.jobs, counts)
		}
	}
}

func TestValidateNamesTheFlag(t *testing.T) {
	ok := DefaultConfig()
	ok.Binary = "/bin/nomadish"
	if err := ok.Validate(); err != nil {
		t.Fatalf("the default config: %v", err)
	}
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Servers = 2 }, "-servers 2"},
		{func(c *Config) { c.Nodes = 0 }, "-nodes 0"},
		{func(c *Config) { c.Allocs = 0 }, "-allocs 0"},
		{func(c *Config) { c.Jobs = 0 }, "-jobs 0"},
		{func(c *Config) { c.Allocs, c.Jobs = 1_000_000, 10 }, "use at least 100 jobs"},
		{func(c *Config) { c.Type = "system" }, `-type "system"`},
		{func(c *Config) { c.Conns = -1 }, "-conns -1"},
		{func(c *Config) { c.Binary = "" }, "binary"},
	} {
		cfg := ok
		c.edit(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error naming %q, got %v", c.want, err)
		}
	}
}

func TestTopFunctionsFlatAndCum(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	leaf, mid, root := fn(1, "leaf"), fn(2, "mid"), fn(3, "root")
	loc := func(id uint64, f *profile.Function) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
	}
	l1, l2, l3 := loc(1, leaf), loc(2, mid), loc(3, root)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples"}, {Type: "cpu"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{l1, l2, l3}, Value: []int64{3, 30}},
			{Location: []*profile.Location{l2, l3}, Value: []int64{1, 10}},
		},
	}
	got := topFunctions(p, 2)
	want := []string{"75.0% flat 75.0% cum leaf", "25.0% flat 100.0% cum mid"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("topFunctions = %q, want %q", got, want)
	}
}

func TestLatenciesPercentiles(t *testing.T) {
	var l Latencies
	t0 := time.Unix(1000, 0)
	l.Submitted("a", t0)
	for i := 1; i <= 100; i++ {
		l.Ran("a", 1, t0.Add(time.Duration(i)*time.Millisecond))
	}
	l.Ran("unknown", 5, t0) // never submitted: left out
	p := l.Percentiles()
	if p.Count != 100 || p.P50 != 50*time.Millisecond || p.P90 != 90*time.Millisecond || p.P99 != 99*time.Millisecond || p.Max != 100*time.Millisecond {
		t.Fatalf("percentiles %+v", p)
	}
	var empty Latencies
	if (empty.Percentiles() != report.Percentiles{}) {
		t.Fatal("empty latencies have percentiles")
	}
}
