package testbin

import "testing"

// Ports handed out are distinct within a call and across calls.
func TestFreePortsNeverRepeat(t *testing.T) {
	seen := map[int]bool{}
	for range 20 {
		ports, err := FreePorts(5)
		if err != nil {
			t.Fatal(err)
		}
		if len(ports) != 5 {
			t.Fatalf("got %d ports, want 5", len(ports))
		}
		for _, p := range ports {
			if seen[p] || p <= 0 {
				t.Fatalf("port %d handed out twice (or invalid)", p)
			}
			seen[p] = true
		}
	}
}
