package cluster

import (
	"testing"
	"time"
)

func TestDeadPast(t *testing.T) {
	now := time.Unix(1000, 0)
	failed := []ServerMember{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	since := map[string]time.Time{"a": now.Add(-time.Minute), "b": now.Add(-10 * time.Second)}
	got := deadPast(failed, since, 30*time.Second, now)
	if len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("deadPast = %+v, want only a (b is within the grace, c not tracked)", got)
	}
}
