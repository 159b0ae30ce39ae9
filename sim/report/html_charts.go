package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"
)

// metric is one line of a time chart: its name and how to read its points
// (time, value) from a run.
type metric struct {
	name   string
	points func(*Report) ([]time.Duration, []float64)
}

// sampleMetric reads one field of the utilization samples; scale
// multiplies it (100 for shares shown as percentages).
func sampleMetric(name string, scale float64, get func(Sample) float64) metric {
	return metric{name: name, points: func(r *Report) ([]time.Duration, []float64) {
		ts := make([]time.Duration, len(r.Utilization))
		ys := make([]float64, len(r.Utilization))
		for i, s := range r.Utilization {
			ts[i], ys[i] = s.Time, scale*get(s)
		}
		return ts, ys
	}}
}

// timeChart is one line chart of metrics over time for every run.
type timeChart struct {
	title, yLabel, xLabel string
	yAtLeast              float64
	metrics               []metric
	// zeroIsMissing drops a line whose values are all 0 (a measure the
	// mode does not record, such as nodes available).
	zeroIsMissing bool
}

// render draws the chart, or returns false when no run has a point. With
// one metric, runs differ by colour and dash; with several, the metric
// picks the colour and the run the dash.
func (tc timeChart) render(runs []*Report, ids *chartIDs) (figure, bool) {
	type raw struct {
		name        string
		ts          []time.Duration
		ys          []float64
		color, dash int
	}
	var all []raw
	var last time.Duration
	for ri, r := range runs {
		for mi, m := range tc.metrics {
			ts, ys := m.points(r)
			if len(ts) == 0 || tc.zeroIsMissing && allZero(ys) {
				continue
			}
			name := m.name
			if len(runs) > 1 {
				name = runLetter(ri) + ": " + name
			}
			color := mi
			if len(tc.metrics) == 1 {
				color = ri
			}
			all = append(all, raw{name, ts, ys, color, ri})
			for _, t := range ts {
				last = max(last, t)
			}
		}
	}
	if len(all) == 0 {
		return figure{}, false
	}
	div, unit := timeUnit(last)
	c := lineChart{ID: ids.next(), Title: tc.title, YLabel: tc.yLabel, YAtLeast: tc.yAtLeast,
		XLabel: fmt.Sprintf("%s (%s)", tc.xLabel, unit)}
	var desc []string
	for _, s := range all {
		ls := lineSeries{Name: s.name, Color: s.color, Dash: s.dash, X: make([]float64, len(s.ts)), Y: s.ys}
		for i, t := range s.ts {
			ls.X[i] = float64(t) / div
		}
		c.Series = append(c.Series, ls)
		desc = append(desc, describe(s.name, s.ts, s.ys))
	}
	c.Desc = tc.title + " over " + tc.xLabel + ". " + strings.Join(desc, "; ") + "."
	return figure{Caption: tc.title, SVG: template.HTML(c.svg())}, true
}

func allZero(ys []float64) bool {
	for _, y := range ys {
		if y != 0 {
			return false
		}
	}
	return true
}

// describe summarises a line for its chart's <desc>: the peak and when,
// and the last value (non-finite values are left out, as on the plot).
func describe(name string, ts []time.Duration, ys []float64) string {
	peak, last := -1, -1
	for i, y := range ys {
		if !finite(y) {
			continue
		}
		if peak < 0 || y > ys[peak] {
			peak = i
		}
		last = i
	}
	if peak < 0 {
		return name + " has no finite value"
	}
	return fmt.Sprintf("%s peaks at %s at %s and ends at %s", name, fmtFloat(ys[peak]),
		fmtDur(ts[peak]), fmtFloat(ys[last]))
}

// timeUnit picks the x axis unit for times up to last: its length in
// nanoseconds and its name.
func timeUnit(last time.Duration) (float64, string) {
	switch {
	case last >= 2*time.Hour:
		return float64(time.Hour), "h"
	case last >= 2*time.Minute:
		return float64(time.Minute), "min"
	case last >= 2*time.Second:
		return float64(time.Second), "s"
	}
	return float64(time.Millisecond), "ms"
}

// charts renders the time charts that have data; the rest are named in
// the returned note.
func charts(runs []*Report, ids *chartIDs, tcs ...timeChart) ([]figure, string) {
	var out []figure
	var empty []string
	for _, tc := range tcs {
		if h, ok := tc.render(runs, ids); ok {
			out = append(out, h)
		} else {
			empty = append(empty, tc.title)
		}
	}
	if len(empty) == 0 {
		return out, ""
	}
	return out, "No samples recorded for: " + strings.Join(empty, ", ") + "."
}

func utilizationSection(runs []*Report, ids *chartIDs) section {
	s := section{ID: "utilization", Heading: "Utilization over time"}
	s.Charts, s.Note = charts(runs, ids,
		timeChart{title: "Share allocated", yLabel: "% allocated", xLabel: "simulated time", yAtLeast: 100,
			metrics: []metric{
				sampleMetric("cpu", 100, func(s Sample) float64 { return s.CPU }),
				sampleMetric("memory", 100, func(s Sample) float64 { return s.Memory }),
				sampleMetric("cores", 100, func(s Sample) float64 { return s.Cores }),
			}},
		timeChart{title: "Stranded cores (free but unusable for NUMA require asks)", yLabel: "cores", xLabel: "simulated time",
			metrics: []metric{sampleMetric("stranded cores", 1, func(s Sample) float64 { return float64(s.StrandedCores) })}},
	)
	return s
}

func allocsSection(runs []*Report, ids *chartIDs) section {
	s := section{ID: "allocations", Heading: "Allocations, blocked evaluations and nodes"}
	s.Charts, s.Note = charts(runs, ids,
		timeChart{title: "Running and pending allocations", yLabel: "allocations", xLabel: "simulated time",
			metrics: []metric{
				sampleMetric("running", 1, func(s Sample) float64 { return float64(s.RunningAllocs) }),
				sampleMetric("pending", 1, func(s Sample) float64 { return float64(s.PendingAllocs) }),
			}},
		timeChart{title: "Blocked evaluations", yLabel: "evaluations", xLabel: "simulated time",
			metrics: []metric{sampleMetric("blocked evals", 1, func(s Sample) float64 { return float64(s.BlockedEvals) })}},
		timeChart{title: "Nodes available", yLabel: "nodes", xLabel: "simulated time", zeroIsMissing: true,
			metrics: []metric{sampleMetric("nodes available", 1, func(s Sample) float64 { return float64(s.NodesAvailable) })}},
	)
	return s
}

func throughputSection(runs []*Report, ids *chartIDs) section {
	xLabel := "time (wall in full mode, simulated in fast)"
	switch modes(runs) {
	case "full":
		xLabel = "wall time"
	case "fast":
		xLabel = "simulated time"
	}
	rate := metric{name: "placements/s", points: func(r *Report) ([]time.Duration, []float64) {
		ts := make([]time.Duration, len(r.Throughput))
		ys := make([]float64, len(r.Throughput))
		for i, p := range r.Throughput {
			ts[i], ys[i] = p.At, p.PerSecond
		}
		return ts, ys
	}}
	s := section{ID: "throughput", Heading: "Throughput"}
	s.Charts, s.Note = charts(runs, ids, timeChart{title: "Placements per second", yLabel: "placements/s",
		xLabel: xLabel, metrics: []metric{rate}})
	t := table{Caption: "Placements per second", Head: runHead("measure", runs)}
	stat := func(f func(min, mean, max float64) float64) func(*Report) string {
		return func(r *Report) string {
			lo, sum, hi, n := math.Inf(1), 0.0, math.Inf(-1), 0
			for _, p := range r.Throughput {
				if finite(p.PerSecond) {
					lo, hi, sum, n = math.Min(lo, p.PerSecond), math.Max(hi, p.PerSecond), sum+p.PerSecond, n+1
				}
			}
			if n == 0 {
				return "-"
			}
			return fmtFloat(f(lo, sum/float64(n), hi))
		}
	}
	t.Rows = []row{
		perRun("lowest", runs, stat(func(lo, _, _ float64) float64 { return lo })),
		perRun("mean of samples", runs, stat(func(_, mean, _ float64) float64 { return mean })),
		perRun("highest", runs, stat(func(_, _, hi float64) float64 { return hi })),
	}
	s.Tables = []table{t}
	return s
}

// modes is "fast" or "full" when every run is of that mode, else "".
func modes(runs []*Report) string {
	m := runs[0].Mode
	for _, r := range runs[1:] {
		if r.Mode != m {
			return ""
		}
	}
	return m
}

func latencySection(runs []*Report, ids *chartIDs) section {
	s := section{ID: "latency", Heading: "Latency",
		Note: "Queue delay: from a job's arrival to its evaluation's dequeue. Placement latency: from arrival to its allocations committed."}
	kinds := []struct {
		name string
		get  func(*Report) Percentiles
	}{
		{"Queue delay", func(r *Report) Percentiles { return r.QueueDelay }},
		{"Placement latency", func(r *Report) Percentiles { return r.PlacementLatency }},
	}
	t := table{Caption: "Latency percentiles", Head: runHead("measure", runs)}
	for _, k := range kinds {
		var longest time.Duration
		for _, r := range runs {
			longest = max(longest, k.get(r).Max, k.get(r).P99)
		}
		div, unit := timeUnit(longest)
		bc := barChart{ID: ids.next(), Title: k.name, YLabel: k.name + " (" + unit + ")", Width: 400,
			Categories: []string{"p50", "p90", "p99", "max"}}
		var desc []string
		for ri, r := range runs {
			p := k.get(r)
			name := k.name
			if len(runs) > 1 {
				name = "run " + runLetter(ri)
			}
			bc.Series = append(bc.Series, barSeries{Name: name, Color: ri, Values: []float64{
				float64(p.P50) / div, float64(p.P90) / div, float64(p.P99) / div, float64(p.Max) / div}})
			desc = append(desc, fmt.Sprintf("%s: p50 %s, p90 %s, p99 %s, max %s over %d samples",
				name, fmtDur(p.P50), fmtDur(p.P90), fmtDur(p.P99), fmtDur(p.Max), p.Count))
		}
		bc.Desc = k.name + " percentiles. " + strings.Join(desc, "; ") + "."
		s.Charts = append(s.Charts, figure{Caption: k.name, SVG: template.HTML(bc.svg())})
		lower := strings.ToLower(k.name)
		t.Rows = append(t.Rows,
			perRun(lower+" samples", runs, func(r *Report) string { return fmt.Sprint(k.get(r).Count) }),
			perRun(lower+" p50", runs, func(r *Report) string { return fmtDur(k.get(r).P50) }),
			perRun(lower+" p90", runs, func(r *Report) string { return fmtDur(k.get(r).P90) }),
			perRun(lower+" p99", runs, func(r *Report) string { return fmtDur(k.get(r).P99) }),
			perRun(lower+" max", runs, func(r *Report) string { return fmtDur(k.get(r).Max) }),
		)
	}
	s.Tables = []table{t}
	return s
}
