package execdriver

import (
	"fmt"
	"syscall"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// This file exports the process helpers other process-running drivers
// (qemu) share: pid identity for recovery, and process-group usage.

// ProcStartTicks returns the start time of pid in clock ticks since boot;
// with the pid it identifies a process across pid reuse.
func ProcStartTicks(pid int) (uint64, error) {
	st, err := readProcStat(pid)
	if err != nil {
		return 0, err
	}
	return st.StartTicks, nil
}

// SignalPid sends the named signal (SIGTERM when empty) to pid, the
// process of task taskID.
func SignalPid(taskID string, pid int, signal string) error {
	sig, err := base.ParseSignal(signal, syscall.SIGTERM)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("signalling task %q: %w", taskID, err)
	}
	return nil
}

// Alive reports whether pid is the same live (non-zombie) process that
// started at startTicks.
func Alive(pid int, startTicks uint64) bool { return alive(pid, startTicks) }

// GroupSampler turns successive samples of one task into TaskResourceUsage
// (CPU percent since the previous sample). Not safe for concurrent use: one
// stats loop owns it.
type GroupSampler struct {
	read   func() groupUsage
	prev   groupUsage
	prevAt time.Time
}

// NewGroupSampler samples process group pgrp; the first sample's CPU
// percent is measured from since (the task's start).
func NewGroupSampler(pgrp int, since time.Time) *GroupSampler {
	return newSampler(func() groupUsage { return readGroupUsage(pgrp) }, since)
}

// newSampler samples what read returns (a task's cgroups or process group).
func newSampler(read func() groupUsage, since time.Time) *GroupSampler {
	return &GroupSampler{read: read, prevAt: since}
}

// Sample reads the usage now; its signature is base.Every's sample.
func (s *GroupSampler) Sample(now time.Time) *base.TaskResourceUsage {
	u := s.read()
	r := usage(u, s.prev, now.Sub(s.prevAt), now)
	s.prev, s.prevAt = u, now
	return r
}
