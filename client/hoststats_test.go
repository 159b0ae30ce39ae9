package client

import (
	"math"
	"testing"
)

func TestParseProcStatAndCPUUsage(t *testing.T) {
	prev := parseProcStat([]byte("cpu  10 0 10 80 0 0 0 0 0 0\ncpu0 10 0 10 80 0 0 0 0 0 0\ncpu1 0 0 0 100 0 0 0 0 0 0\nintr 5\n"))
	cur := parseProcStat([]byte("cpu  0 0 0 0\ncpu0 40 10 20 130 0 0 0 0 0 0\ncpu1 0 0 0 100 0 0 0 0 0 0\ncpu2 1 1 1 1\n"))
	if _, ok := cur["cpu"]; ok || len(cur) != 3 {
		t.Fatalf("parsed %v", cur)
	}
	u := cpuUsage(prev, cur)
	if len(u) != 1 { // cpu1 did not move, cpu2 is new
		t.Fatalf("usage %v", u)
	}
	got := u["cpu0"] // 100 jiffies: 40 user (30+10 nice), 10 system, 50 idle
	want := cpuPercent{User: 40, System: 10, Idle: 50, Total: 50}
	for _, p := range [][2]float64{{got.User, want.User}, {got.System, want.System}, {got.Idle, want.Idle}, {got.Total, want.Total}} {
		if math.Abs(p[0]-p[1]) > 1e-9 {
			t.Fatalf("cpu0 %+v, want %+v", got, want)
		}
	}
}

func TestParseMeminfo(t *testing.T) {
	m, err := parseMeminfo([]byte("MemTotal:       1000 kB\nMemFree:         200 kB\nMemAvailable:    600 kB\nBuffers: 1 kB\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (memInfo{Total: 1000 << 10, Available: 600 << 10, Used: 400 << 10, Free: 200 << 10}); m != want {
		t.Fatalf("meminfo %+v, want %+v", m, want)
	}
	if _, err := parseMeminfo([]byte("nothing\n")); err == nil {
		t.Fatal("no MemTotal: no error")
	}
}

func TestStatDisk(t *testing.T) {
	d, err := statDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if d.Size == 0 || d.Used+d.Available > d.Size || d.UsedPercent < 0 || d.UsedPercent > 100 {
		t.Fatalf("disk %+v", d)
	}
}
