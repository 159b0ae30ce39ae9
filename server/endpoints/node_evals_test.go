package endpoints

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestJobTargetsNode(t *testing.T) {
	n := &structs.Node{Datacenter: "east-1", NodePool: "gpu"}
	for _, tc := range []struct {
		dcs  []string
		pool string
		want bool
	}{
		{[]string{"east-1"}, "gpu", true},
		{[]string{"*"}, "all", true},
		{[]string{"west-1", "east-*"}, "", true},
		{[]string{"west-1"}, "gpu", false},
		{[]string{"east-1"}, "default", false},
	} {
		if got := jobTargetsNode(&structs.Job{Datacenters: tc.dcs, NodePool: tc.pool}, n); got != tc.want {
			t.Errorf("datacenters %v pool %q: %v, want %v", tc.dcs, tc.pool, got, tc.want)
		}
	}
}
