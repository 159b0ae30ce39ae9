package cluster

import (
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

func TestRaftConfigApplyTo(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   RaftConfig
		dev  bool
		want func(c *raft.Config)
		err  error
	}{
		{"zero keeps raft defaults", RaftConfig{}, false, func(*raft.Config) {}, nil},
		{"knobs set", RaftConfig{SnapshotThreshold: 64, SnapshotInterval: time.Second, TrailingLogs: 16}, false, func(c *raft.Config) {
			c.SnapshotThreshold, c.SnapshotInterval, c.TrailingLogs = 64, time.Second, 16
		}, nil},
		{"dev ignores knobs", RaftConfig{SnapshotThreshold: 64}, true, func(*raft.Config) {}, nil},
		{"interval too short", RaftConfig{SnapshotInterval: time.Millisecond}, false, nil, ErrConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := raft.DefaultConfig(), raft.DefaultConfig()
			err := tc.in.applyTo(got, tc.dev)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if tc.err != nil {
				return
			}
			tc.want(want)
			if got.SnapshotThreshold != want.SnapshotThreshold || got.SnapshotInterval != want.SnapshotInterval || got.TrailingLogs != want.TrailingLogs {
				t.Fatalf("got threshold %d interval %s trailing %d, want %d %s %d", got.SnapshotThreshold, got.SnapshotInterval,
					got.TrailingLogs, want.SnapshotThreshold, want.SnapshotInterval, want.TrailingLogs)
			}
		})
	}
}
