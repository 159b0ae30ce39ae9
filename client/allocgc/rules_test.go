package allocgc

import (
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func dead(id string, minutes int) Alloc {
	return Alloc{ID: id, Terminal: true, TerminalAt: t0.Add(time.Duration(minutes) * time.Minute)}
}

func live(id string) Alloc { return Alloc{ID: id} }

func TestDecide(t *testing.T) {
	cfg := Config{}.WithDefaults()
	small := Config{DiskUsageThreshold: 80, InodeUsageThreshold: 70, MaxAllocs: 3}.WithDefaults()
	cases := []struct {
		name   string
		allocs []Alloc
		usage  DiskUsage
		cfg    Config
		want   []string
		reason bool
	}{
		{"under every limit", []Alloc{dead("a", 1), live("b")}, DiskUsage{50, 50}, cfg, nil, false},
		{"at the thresholds is not over", []Alloc{dead("a", 1)}, DiskUsage{80, 70}, cfg, nil, false},
		{"disk over: the one oldest terminal", []Alloc{dead("new", 9), live("run"), dead("old", 1), dead("mid", 5)},
			DiskUsage{81, 10}, cfg, []string{"old"}, true},
		{"inodes over: the one oldest terminal", []Alloc{dead("b", 2), dead("a", 2)},
			DiskUsage{10, 71}, cfg, []string{"a"}, true},
		{"disk over, nothing terminal: nothing", []Alloc{live("a"), live("b")}, DiskUsage{99, 99}, cfg, nil, true},
		{"count over: the oldest down to the limit",
			[]Alloc{live("r1"), dead("d3", 3), dead("d1", 1), live("r2"), dead("d2", 2), dead("d4", 4)},
			DiskUsage{}, small, []string{"d1", "d2", "d3"}, true},
		{"count over, too few terminal: all of them, never a live one",
			[]Alloc{live("r1"), live("r2"), live("r3"), dead("d1", 1), live("r4")},
			DiskUsage{}, small, []string{"d1"}, true},
		{"count at the limit is not over", []Alloc{dead("a", 1), dead("b", 2), dead("c", 3)}, DiskUsage{}, small, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.allocs, tc.usage, tc.cfg)
			if !slices.Equal(d.Destroy, tc.want) {
				t.Fatalf("Decide destroys %v, want %v (reason %q)", d.Destroy, tc.want, d.Reason)
			}
			if (d.Reason != "") != tc.reason {
				t.Fatalf("reason %q, want one: %v", d.Reason, tc.reason)
			}
		})
	}
}

func TestPressureNamesTheLimit(t *testing.T) {
	cfg := Config{}.WithDefaults()
	for _, tc := range []struct {
		u    DiskUsage
		n    int
		want string
	}{
		{DiskUsage{90, 0}, 0, "disk usage of 90% is over the gc threshold of 80%"},
		{DiskUsage{0, 75}, 0, "inode usage of 75% is over the gc threshold of 70%"},
		{DiskUsage{}, 51, "number of allocations (51) is over the limit (50)"},
		{DiskUsage{}, 50, ""},
	} {
		if got := Pressure(tc.u, tc.n, cfg); got != tc.want {
			t.Errorf("Pressure(%v, %d) = %q, want %q", tc.u, tc.n, got, tc.want)
		}
	}
}

func TestDefaultsAreNomads(t *testing.T) {
	got := Config{}.WithDefaults()
	want := Config{Interval: time.Minute, DiskUsageThreshold: 80, InodeUsageThreshold: 70, MaxAllocs: 50, ParallelDestroys: 2}
	if got != want {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
}

func TestAllTerminalOldestFirst(t *testing.T) {
	got := AllTerminal([]Alloc{dead("c", 3), live("x"), dead("a", 1), dead("b", 1)})
	if want := []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("AllTerminal = %v, want %v", got, want)
	}
}

func TestStatFSMeasuresTheTempDir(t *testing.T) {
	u, err := StatFS{}.Usage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if u.UsedPercent < 0 || u.UsedPercent > 100 || u.InodesUsedPercent < 0 || u.InodesUsedPercent > 100 {
		t.Fatalf("usage out of range: %+v", u)
	}
	if _, err := (StatFS{}).Usage("/no/such/dir"); err == nil {
		t.Fatal("statfs of a missing dir did not fail")
	}
}
