package endpoints

import (
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// testDeps is a leader's Deps over an empty state store, with no raft:
// Apply fails with ErrNoLeader, so only reads are meaningful.
func testDeps(t *testing.T) *Deps {
	t.Helper()
	store, err := state.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	shutdown := make(chan struct{})
	t.Cleanup(func() { close(shutdown) })
	return &Deps{
		State:         func() *state.StateStore { return store },
		Apply:         func(structs.MessageType, any) (uint64, any, error) { return 0, nil, structs.ErrNoLeader },
		WaitForLeader: func() bool { return true },
		Leader:        func() string { return "127.0.0.1:4647" },
		LastContact:   func() time.Duration { return 0 },
		Shutdown:      shutdown,
		Clock:         clocktest.NewFakeClock(),
		Logger:        hclog.NewNullLogger(),
	}
}

// A blocking list times out with the current answer, built once.
func TestBlockingListTimesOutWithAnswer(t *testing.T) {
	d := testDeps(t)
	runs := 0
	opts := &structs.QueryOptions{MinQueryIndex: 1 << 40, MaxQueryTime: time.Millisecond}
	var meta structs.QueryMeta
	err := d.blockingList(opts, &meta, []string{state.TableJobs}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		runs++
		if ws != nil {
			t.Error("a list query got a watch set: it must not add per-object channels")
		}
		return st.Index(state.TableJobs)
	})
	if err != nil || runs != 1 || meta.Index == 0 {
		t.Fatalf("runs %d, index %d, %v; want 1 run, an index", runs, meta.Index, err)
	}
}
