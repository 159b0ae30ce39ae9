package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nomadish/nomadish/sim/fast"
	"github.com/nomadish/nomadish/sim/report"
)

// simRun is fast.Run; a variable so the sweep's tests can count runs.
var simRun = fast.Run

// parseWorkers reads -workers: one count or a comma-separated list of
// distinct counts (a sweep), each at least 1.
func parseWorkers(list string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-workers %q: %q is not a worker count; want a number of at least 1 or a list such as 1,2,4,8", list, s)
		}
		if seen[n] {
			return nil, fmt.Errorf("-workers %q: %d is listed twice", list, n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// runSweep runs cfg once per worker count (cfg.Workers is ignored). With
// one count it is fast.Run. With more, the report is the first count's
// run with WorkerSweep holding every count's row, in the order given,
// and the wall time of all the runs.
func runSweep(cfg fast.Config, counts []int) (*report.Report, error) {
	var first *report.Report
	var sweep []report.WorkerPoint
	var wall time.Duration
	for _, w := range counts {
		cfg.Workers = w
		r, err := simRun(cfg)
		if err != nil {
			return nil, fmt.Errorf("with %d workers: %w", w, err)
		}
		if first == nil {
			first = r
		}
		wall += r.WallTime
		sweep = append(sweep, report.PointOf(r))
	}
	if len(counts) > 1 {
		first.WorkerSweep, first.WallTime = sweep, wall
		first.Config["worker_sweep"] = joinInts(counts)
	}
	return first, nil
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// writeSweep prints the sweep as a table, one row per worker count.
func writeSweep(w io.Writer, sweep []report.WorkerPoint) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workers\tconflicts\tretries\tqueue p50\tqueue p99\tplacement p50\tplacement p99\t")
	for _, p := range sweep {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", p.Workers, p.PlanConflicts, p.Retries,
			fmtMS(p.QueueDelay.P50), fmtMS(p.QueueDelay.P99), fmtMS(p.PlacementLatency.P50), fmtMS(p.PlacementLatency.P99))
	}
	tw.Flush()
}

// fmtMS is a latency in milliseconds to the microsecond, or from a second
// on as a duration to the millisecond.
func fmtMS(d time.Duration) string {
	if d >= time.Second {
		return d.Round(time.Millisecond).String()
	}
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64) + " ms"
}
