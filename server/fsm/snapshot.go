package fsm

import (
	"fmt"
	"io"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/server/state"
)

// Snapshot returns a point-in-time view to persist. Called by raft
// concurrently with Apply; the memdb snapshot is immutable.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	return &fsmSnapshot{snap: f.State().Snapshot()}, nil
}

// Restore replaces the store with the snapshot's content. The old store is
// abandoned (blocking queries on it wake up) and its notifier and event
// publisher move over.
func (f *FSM) Restore(r io.ReadCloser) error {
	defer r.Close()
	st, err := state.Restore(r, f.logger)
	if err != nil {
		return fmt.Errorf("restoring state snapshot: %w", err)
	}
	f.mu.Lock()
	old := f.state
	st.SetNotifier(old.Notifier())
	st.SetEventPublisher(old.EventPublisher())
	f.state = st
	f.mu.Unlock()
	old.Abandon()
	return nil
}

// CheckSnapshot decodes a state snapshot (what Snapshot persists and
// Restore reads) into a scratch store that is thrown away, turning a
// decoder panic on malformed input into an error. An operator snapshot
// restore calls it before handing the state to raft, so raft restores only
// a state every FSM can load.
func CheckSnapshot(r io.Reader) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("decoder panic: %v", p)
		}
	}()
	_, err = state.Restore(r, hclog.NewNullLogger())
	return err
}

type fsmSnapshot struct {
	snap *state.StateSnapshot
}

func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if err := s.snap.Persist(sink); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s *fsmSnapshot) Release() {}
