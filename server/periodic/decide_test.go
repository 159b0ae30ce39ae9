package periodic

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestDecide(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	every2s := &structs.PeriodicConfig{Enabled: true, Spec: "*/2 * * * * * *"}
	noOverlap := &structs.PeriodicConfig{Enabled: true, Spec: "*/2 * * * * * *", ProhibitOverlap: true}
	hourly := &structs.PeriodicConfig{Enabled: true, Specs: []string{"0 * * * *", "30 * * * *"}}
	for _, tc := range []struct {
		name       string
		in         Input
		wantLaunch time.Time
		wantSkip   bool
		wantNext   time.Time
	}{
		{"just registered, nothing due", Input{Config: every2s, Since: t0, Now: t0.Add(time.Second)},
			time.Time{}, false, t0.Add(2 * time.Second)},
		{"due now", Input{Config: every2s, Last: t0, Now: t0.Add(2 * time.Second)},
			t0.Add(2 * time.Second), false, t0.Add(4 * time.Second)},
		{"already launched: none", Input{Config: every2s, Last: t0.Add(2 * time.Second), Now: t0.Add(3 * time.Second)},
			time.Time{}, false, t0.Add(4 * time.Second)},
		{"due during the election: launched once, the latest", Input{Config: every2s, Last: t0, Now: t0.Add(7 * time.Second)},
			t0.Add(6 * time.Second), false, t0.Add(8 * time.Second)},
		{"never launched, registered before the election", Input{Config: every2s, Since: t0.Add(time.Second), Now: t0.Add(3 * time.Second)},
			t0.Add(2 * time.Second), false, t0.Add(4 * time.Second)},
		{"prohibit_overlap with a running child: skipped", Input{Config: noOverlap, Last: t0, Now: t0.Add(2 * time.Second), ChildRunning: true},
			t0.Add(2 * time.Second), true, t0.Add(4 * time.Second)},
		{"prohibit_overlap, children dead: launched", Input{Config: noOverlap, Last: t0, Now: t0.Add(2 * time.Second)},
			t0.Add(2 * time.Second), false, t0.Add(4 * time.Second)},
		{"crons: the earliest of them", Input{Config: hourly, Last: t0, Now: t0.Add(10 * time.Minute)},
			time.Time{}, false, t0.Add(30 * time.Minute)},
		{"a year late: one launch, the latest", Input{Config: hourly, Last: t0, Now: t0.Add(365*24*time.Hour + 45*time.Minute)},
			t0.Add(365*24*time.Hour + 30*time.Minute), false, t0.Add(365*24*time.Hour + 60*time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.in)
			if !d.Launch.Equal(tc.wantLaunch) || d.Skip != tc.wantSkip || !d.Next.Equal(tc.wantNext) {
				t.Fatalf("Decide = launch %v skip %v next %v; want launch %v skip %v next %v",
					d.Launch, d.Skip, d.Next, tc.wantLaunch, tc.wantSkip, tc.wantNext)
			}
		})
	}
}

func TestDecideTimeZone(t *testing.T) {
	cfg := &structs.PeriodicConfig{Enabled: true, Spec: "0 9 * * *", TimeZone: "America/New_York"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := Decide(Input{Config: cfg, Since: now, Now: now})
	if want := time.Date(2026, 1, 1, 14, 0, 0, 0, time.UTC); !d.Next.Equal(want) {
		t.Fatalf("next = %v, want %v (09:00 New York)", d.Next.UTC(), want)
	}
}
