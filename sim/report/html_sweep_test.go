package report

import (
	"strings"
	"testing"
	"time"
)

func TestHTMLWorkerSweep(t *testing.T) {
	r := sampleRun(time.Hour)
	ms := func(n int) Percentiles {
		return Percentiles{Count: 10, P50: time.Duration(n) * time.Millisecond / 2, P99: time.Duration(n) * time.Millisecond}
	}
	r.WorkerSweep = []WorkerPoint{
		{Workers: 1, QueueDelay: ms(248), PlacementLatency: ms(249)},
		{Workers: 2, PlanConflicts: 3, Retries: 3, QueueDelay: ms(124), PlacementLatency: ms(125)},
		{Workers: 8, PlanConflicts: 56, Retries: 57, QueueDelay: ms(87), PlacementLatency: ms(99)},
	}
	page := render(t, r)
	parseStrict(t, page)
	conflicts := page[strings.Index(page, `id="conflicts"`):]
	for _, want := range []string{"Worker sweep: the same trace once per worker count",
		"Plan conflicts and retries by worker count", "p99 delays by worker count",
		"8 workers: 56 conflicts, 57 retries", "8 workers: queue delay p99 87 ms, placement latency p99 99 ms",
		"<td>57</td>", "248ms"} {
		if !strings.Contains(conflicts, want) {
			t.Errorf("the conflicts section lacks %q", want)
		}
	}
	if n := strings.Count(conflicts[:strings.Index(conflicts, "</section>")], "<svg"); n != 3 {
		t.Errorf("%d charts in the conflicts section; want the run chart and the sweep's two", n)
	}
	// Without a sweep, nothing of it is drawn.
	if page := render(t, sampleRun(time.Hour)); strings.Contains(page, "Worker sweep") {
		t.Error("a run without a sweep shows one")
	}
}

func TestPointOf(t *testing.T) {
	r := sampleRun(time.Hour)
	p := PointOf(r)
	if p.Workers != 4 || p.PlanConflicts != 12 || p.Retries != 13 || p.QueueDelay != r.QueueDelay || p.PlacementLatency != r.PlacementLatency {
		t.Fatalf("PointOf = %+v", p)
	}
}
