package full

import (
	"os"
	"slices"
	"strings"
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

// TestConfigServerRuntime: -server-gogc and -server-memlimit take Go's own
// syntax, are refused naming the flag otherwise, and reach the servers'
// environment only when set.
func TestConfigServerRuntime(t *testing.T) {
	base := DefaultConfig()
	base.Binary = "/bin/true"
	for _, c := range []struct {
		gogc, mem, bad string
		env            []string
	}{
		{env: nil},
		{gogc: "200", mem: "14GiB", env: []string{"GOGC=200", "GOMEMLIMIT=14GiB"}},
		{gogc: "off", env: []string{"GOGC=off"}},
		{mem: "1073741824", env: []string{"GOMEMLIMIT=1073741824"}},
		{gogc: "0", bad: "-server-gogc"},
		{gogc: "lots", bad: "-server-gogc"},
		{mem: "14GB", bad: "-server-memlimit"},
		{mem: "-1", bad: "-server-memlimit"},
	} {
		cfg := base
		cfg.ServerGOGC, cfg.ServerMemLimit = c.gogc, c.mem
		err := cfg.Validate()
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("gogc %q mem %q: error %v, want one naming %s", c.gogc, c.mem, err, c.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("gogc %q mem %q: %v", c.gogc, c.mem, err)
		}
		if got := cfg.serverEnv(); !slices.Equal(got, c.env) {
			t.Errorf("gogc %q mem %q: env %v, want %v", c.gogc, c.mem, got, c.env)
		}
	}
}
