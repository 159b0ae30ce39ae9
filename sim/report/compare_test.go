package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestCompareDeltas(t *testing.T) {
	a := &Report{Placements: 100, PlanConflicts: 4, QueueDelay: Percentiles{P50: 10 * time.Millisecond}}
	b := &Report{Placements: 150, PlanConflicts: 0, QueueDelay: Percentiles{P50: 5 * time.Millisecond},
		AtFirstRejection: &Sample{CPU: 0.9}}
	got := map[string]Delta{}
	for _, d := range Compare(a, b) {
		got[d.Name] = d
	}
	if d := got["placements"]; d.A != 100 || d.B != 150 || d.Change != 0.5 {
		t.Errorf("placements %+v, want 100 -> 150 (+50%%)", d)
	}
	if d := got["plan_conflicts"]; d.Change != -1 {
		t.Errorf("plan_conflicts %+v, want -100%%", d)
	}
	if d := got["queue_delay_p50_ms"]; d.A != 10 || d.B != 5 {
		t.Errorf("queue delay %+v, want 10 ms -> 5 ms", d)
	}
	if d := got["cpu_at_first_rejection"]; d.A != 0 || d.B != 0.9 || d.Change != 0 {
		t.Errorf("cpu at first rejection %+v: A had none (no change figure)", d)
	}
	var buf bytes.Buffer
	if err := WriteDeltas(&buf, Compare(a, b)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "+50.0%") || !strings.Contains(buf.String(), "-100.0%") {
		t.Errorf("table:\n%s", buf.String())
	}
}
