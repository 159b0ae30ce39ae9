package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Delta is one measure of two runs on the same trace: A's value, B's, and
// B's change relative to A (0.1 is +10%; 0 when A is 0).
type Delta struct {
	Name   string  `json:"name"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	Change float64 `json:"change"`
}

// Compare lists the measures of a and b that a comparison shows, in a
// fixed order.
func Compare(a, b *Report) []Delta {
	type measure struct {
		name string
		get  func(*Report) float64
	}
	ms := []measure{
		{"placements", func(r *Report) float64 { return float64(r.Placements) }},
		{"rejections", func(r *Report) float64 { return float64(r.Rejections) }},
		{"preemptions", func(r *Report) float64 { return float64(r.Preemptions) }},
		{"plan_conflicts", func(r *Report) float64 { return float64(r.PlanConflicts) }},
		{"retries", func(r *Report) float64 { return float64(r.Retries) }},
		{"blocked_evals_peak", func(r *Report) float64 { return float64(r.BlockedEvalsPeak) }},
		{"queue_delay_p50_ms", func(r *Report) float64 { return ms(r.QueueDelay.P50.Seconds()) }},
		{"queue_delay_p99_ms", func(r *Report) float64 { return ms(r.QueueDelay.P99.Seconds()) }},
		{"placement_latency_p50_ms", func(r *Report) float64 { return ms(r.PlacementLatency.P50.Seconds()) }},
		{"placement_latency_p99_ms", func(r *Report) float64 { return ms(r.PlacementLatency.P99.Seconds()) }},
		{"cpu_at_first_rejection", func(r *Report) float64 { return firstRejection(r).CPU }},
		{"memory_at_first_rejection", func(r *Report) float64 { return firstRejection(r).Memory }},
		{"cores_at_first_rejection", func(r *Report) float64 { return firstRejection(r).Cores }},
		{"wall_time_s", func(r *Report) float64 { return r.WallTime.Seconds() }},
	}
	out := make([]Delta, 0, len(ms))
	for _, m := range ms {
		d := Delta{Name: m.name, A: m.get(a), B: m.get(b)}
		if d.A != 0 {
			d.Change = (d.B - d.A) / d.A
		}
		out = append(out, d)
	}
	return out
}

func ms(seconds float64) float64 { return seconds * 1000 }

// firstRejection is the utilization at the first rejection, or zero.
func firstRejection(r *Report) Sample {
	if r.AtFirstRejection == nil {
		return Sample{}
	}
	return *r.AtFirstRejection
}

// WriteDeltas prints deltas as an aligned table.
func WriteDeltas(w io.Writer, deltas []Delta) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tA\tB\tchange")
	for _, d := range deltas {
		change := "-"
		if d.A != 0 {
			change = fmt.Sprintf("%+.1f%%", 100*d.Change)
		}
		fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%s\n", d.Name, d.A, d.B, change)
	}
	return tw.Flush()
}
