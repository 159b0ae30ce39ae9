package checks

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

const (
	pass = structs.CheckPassing
	warn = structs.CheckWarning
	crit = structs.CheckCritical
	pend = structs.CheckPending
)

func TestTrackerThresholds(t *testing.T) {
	cases := []struct {
		name  string
		check structs.ServiceCheck
		in    []string
		want  []string
	}{
		{"defaults: every result at once", structs.ServiceCheck{}, []string{pass, crit, warn, pass}, []string{pass, crit, warn, pass}},
		{"initial status stays until a result", structs.ServiceCheck{InitialStatus: warn, SuccessBeforePassing: 2},
			[]string{pass, pass}, []string{warn, pass}},
		{"success_before_passing counts consecutive passes", structs.ServiceCheck{SuccessBeforePassing: 3},
			[]string{pass, pass, crit, pass, pass, pass}, []string{pend, pend, crit, crit, crit, pass}},
		{"failures_before_critical", structs.ServiceCheck{FailuresBeforeCritical: 3},
			[]string{pass, crit, crit, pass, crit, crit, crit}, []string{pass, pass, pass, pass, pass, pass, crit}},
		{"failures_before_warning before critical", structs.ServiceCheck{FailuresBeforeWarning: 1, FailuresBeforeCritical: 3},
			[]string{pass, crit, crit, crit}, []string{pass, warn, warn, crit}},
		{"a raw warning never reports critical", structs.ServiceCheck{FailuresBeforeCritical: 2},
			[]string{pass, warn, warn, warn}, []string{pass, pass, warn, warn}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(&tc.check)
			for i, raw := range tc.in {
				if got := tr.Observe(raw); got != tc.want[i] {
					t.Fatalf("result %d (%s): reported %s, want %s", i, raw, got, tc.want[i])
				}
			}
		})
	}
}

func TestRestartWatch(t *testing.T) {
	start := time.Unix(1000, 0)
	if NewRestartWatch(nil, start) != nil || NewRestartWatch(&structs.CheckRestart{}, start) != nil {
		t.Fatal("no policy or limit 0 must never restart")
	}
	w := NewRestartWatch(&structs.CheckRestart{Limit: 2, Grace: 10 * time.Second}, start)
	steps := []struct {
		status string
		at     time.Duration
		want   bool
	}{
		{crit, 5 * time.Second, false},  // in grace: not counted
		{crit, 9 * time.Second, false},  // in grace
		{crit, 11 * time.Second, false}, // 1
		{pass, 12 * time.Second, false}, // healthy: over
		{crit, 13 * time.Second, false}, // 1
		{warn, 14 * time.Second, true},  // 2: warnings count
		{crit, 15 * time.Second, false}, // the count started over
		{crit, 16 * time.Second, true},
	}
	for i, s := range steps {
		if got := w.Observe(s.status, start.Add(s.at)); got != s.want {
			t.Fatalf("step %d (%s at +%v): restart %v, want %v", i, s.status, s.at, got, s.want)
		}
	}
	w = NewRestartWatch(&structs.CheckRestart{Limit: 1, IgnoreWarnings: true}, start)
	if w.Observe(warn, start) || !w.Observe(crit, start) {
		t.Fatal("ignore_warnings: a warning must not count, a critical must")
	}
}
