package full

import (
	"os"
	"testing"
)

func TestParseStatCPU(t *testing.T) {
	// utime 250 and stime 50 ticks; the command holds a space and a ')'.
	line := "4242 (nomad ish) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 100 1000 200"
	got, err := parseStatCPU(line)
	if err != nil || got != 3.0 {
		t.Fatalf("got %v, %v; want 3 s", got, err)
	}
	for _, bad := range []string{"4242 nomadish S 1", "4242 (x) S 1 2 3", "4242 (x) S 1 2 3 4 5 6 7 8 9 10 abc 5"} {
		if _, err := parseStatCPU(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if cpu, err := cpuSeconds(os.Getpid()); err != nil || cpu < 0 {
		t.Fatalf("own CPU time: %v, %v", cpu, err)
	}
}
