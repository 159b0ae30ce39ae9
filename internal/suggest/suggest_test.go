package suggest

import (
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"status", "status", 0},
		{"stauts", "status", 1}, // transposition
		{"sttus", "status", 1},  // deletion
		{"statuss", "status", 1},
		{"stutas", "status", 2},
		{"", "job", 3},
		{"jbo", "job", 1},
		{"kitten", "sitting", 3},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	for _, c := range []struct {
		typed string
		cands []string
		want  string
	}{
		{"stauts", []string{"run", "status", "stop"}, "status"},
		{"stop", []string{"run", "status", "stop"}, ""}, // exact: no typo
		{"rnu", []string{"run", "status", "stop"}, "run"},
		{"bogus", []string{"run", "status", "stop"}, ""},
		{"a", []string{"b"}, ""},          // replacing the whole word is no suggestion
		{"x", []string{"ls", "x1"}, "x1"}, // one insertion
		{"lst-peers", []string{"list-peers", "remove-peer"}, "list-peers"},
		{"stpo", []string{"stop", "step"}, "stop"}, // transposition (1) beats substitution (2)
	} {
		if got := Closest(c.typed, c.cands); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	if got := DidYouMean("confg", []string{"config", "env"}); got != ` Did you mean "config"?` {
		t.Errorf("got %q", got)
	}
	if got := DidYouMean("xyz", []string{"config", "env"}); got != "" {
		t.Errorf("got %q", got)
	}
}
