package endpoints

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestAllocBatcherRefusesNil: the batcher alone (any caller) refuses a nil
// allocation without queueing the call's other allocations.
func TestAllocBatcherRefusesNil(t *testing.T) {
	b := newAllocBatcher(nil, 0)
	f := b.add([]*structs.Allocation{{ID: "a"}, nil})
	<-f.done
	if code, msg := structs.ErrorCode(f.err); code != structs.ErrCodeBadRequest || !strings.Contains(msg, "Alloc[1] is null") {
		t.Fatalf("got %v", f.err)
	}
	if len(b.pending) != 0 || b.fut != nil {
		t.Fatalf("queued %d allocs", len(b.pending))
	}
}
