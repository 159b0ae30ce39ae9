package scheduler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestMatchDatacenter(t *testing.T) {
	cases := []struct {
		patterns []string
		dc       string
		want     bool
	}{
		{[]string{"*"}, "anything", true},
		{[]string{"dc1"}, "dc1", true},
		{[]string{"dc1"}, "dc2", false},
		{[]string{"dc*"}, "dc2", true},
		{[]string{"east-*", "west-1"}, "west-1", true},
		{[]string{"east-*"}, "west-1", false},
		{[]string{"[bad"}, "[bad", true},
		{nil, "dc1", false},
	}
	for _, c := range cases {
		if got := matchDatacenter(c.patterns, c.dc); got != c.want {
			t.Errorf("matchDatacenter(%q, %q) = %v, want %v", c.patterns, c.dc, got, c.want)
		}
	}
}

func TestServiceLimit(t *testing.T) {
	for n, want := range map[int]int{0: 2, 1: 2, 3: 2, 5: 3, 1000: 10, 1024: 10, 1025: 11} {
		if got := serviceLimit(n); got != want {
			t.Errorf("serviceLimit(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestShuffleDeterministic(t *testing.T) {
	mk := func() []*structs.Node {
		var ns []*structs.Node
		for i := range 20 {
			ns = append(ns, &structs.Node{ID: fmt.Sprintf("n%02d", 19-i)})
		}
		return ns
	}
	ids := func(ns []*structs.Node) string {
		var s []string
		for _, n := range ns {
			s = append(s, n.ID)
		}
		return strings.Join(s, ",")
	}
	a, b, c := mk(), mk(), mk()
	shuffleNodes(a, "eval-1", 7)
	shuffleNodes(b, "eval-1", 7)
	shuffleNodes(c, "eval-2", 7)
	if ids(a) != ids(b) {
		t.Fatalf("same seed, different order:\n%s\n%s", ids(a), ids(b))
	}
	if ids(a) == ids(c) {
		t.Fatalf("different eval IDs gave the same order %s", ids(a))
	}
}

func TestDriverChecker(t *testing.T) {
	n := &structs.Node{
		Attributes: map[string]string{"driver.old": "1", "driver.off": "0"},
		Drivers: map[string]*structs.DriverInfo{
			"ok": {Detected: true, Healthy: true}, "sick": {Detected: true}, "gone": {Healthy: true},
		},
	}
	cases := map[string]string{"ok": "", "old": "", "sick": `driver "sick" unhealthy`, "gone": `missing driver "gone"`,
		"off": `missing driver "off"`, "none": `missing driver "none"`}
	for d, want := range cases {
		ok, reason := driverHealthy(n, d)
		if ok != (want == "") || reason != want {
			t.Errorf("driver %s: ok=%v reason=%q, want %q", d, ok, reason, want)
		}
	}
}
