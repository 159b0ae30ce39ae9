package fsm

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/nomadish/nomadish/structs"
)

// Placements decoded from one plan entry share their repeated strings and
// equal nodes-available maps; different values stay apart.
func TestShareDecodedPlacements(t *testing.T) {
	in := &structs.ApplyPlanResultsRequest{}
	for i := range 3 {
		dc := map[string]int{"dc1": 5000}
		if i == 2 {
			dc = map[string]int{"dc1": 4999}
		}
		in.AllocsPlaced = append(in.AllocsPlaced, &structs.Allocation{ID: structs.GenerateUUID(), Namespace: "default",
			JobID: "web", TaskGroup: "g", EvalID: "e1", DesiredStatus: structs.AllocDesiredStatusRun,
			Metrics: &structs.AllocMetric{NodesAvailable: dc}})
	}
	buf, err := structs.Encode(structs.ApplyPlanResultsRequestType, in)
	if err != nil {
		t.Fatal(err)
	}
	var req structs.ApplyPlanResultsRequest
	if err := structs.Decode(buf[1:], &req); err != nil {
		t.Fatal(err)
	}
	a, b, c := req.AllocsPlaced[0], req.AllocsPlaced[1], req.AllocsPlaced[2]
	if unsafe.StringData(a.JobID) == unsafe.StringData(b.JobID) {
		t.Fatal("the decoder already shares strings: the test proves nothing")
	}
	shareDecoded(req.AllocsPlaced)
	for _, p := range [][2]string{{a.JobID, b.JobID}, {a.Namespace, c.Namespace}, {a.EvalID, c.EvalID}, {a.DesiredStatus, b.DesiredStatus}} {
		if unsafe.StringData(p[0]) != unsafe.StringData(p[1]) {
			t.Fatalf("%q is not shared", p[0])
		}
	}
	if reflect.ValueOf(a.Metrics.NodesAvailable).Pointer() != reflect.ValueOf(b.Metrics.NodesAvailable).Pointer() {
		t.Fatal("equal nodes-available maps are not shared")
	}
	if c.Metrics.NodesAvailable["dc1"] != 4999 || a.Metrics.NodesAvailable["dc1"] != 5000 {
		t.Fatal("different maps were merged")
	}
	for i, x := range req.AllocsPlaced {
		if x.ID != in.AllocsPlaced[i].ID || x.JobID != "web" || x.Namespace != "default" {
			t.Fatalf("alloc %d changed: %+v", i, x)
		}
	}
}
