package allocgc

import (
	"fmt"
	"sort"
	"time"
)

// Nomad's client defaults (client { gc_interval gc_disk_usage_threshold
// gc_inode_usage_threshold gc_max_allocs gc_parallel_destroys }).
const (
	DefaultInterval            = time.Minute
	DefaultDiskUsageThreshold  = 80
	DefaultInodeUsageThreshold = 70
	DefaultMaxAllocs           = 50
	DefaultParallelDestroys    = 2
)

// Config is the client's gc keys. A zero field takes its default
// (WithDefaults).
type Config struct {
	// Interval is how often the limits are checked (gc_interval).
	Interval time.Duration
	// DiskUsageThreshold and InodeUsageThreshold are the percentages of
	// the alloc dir's filesystem (blocks, inodes) above which terminal
	// allocations are destroyed.
	DiskUsageThreshold, InodeUsageThreshold float64
	// MaxAllocs is the number of allocations (running or not) above which
	// terminal ones are destroyed.
	MaxAllocs int
	// ParallelDestroys bounds the destroys in progress at once.
	ParallelDestroys int
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.DiskUsageThreshold <= 0 {
		c.DiskUsageThreshold = DefaultDiskUsageThreshold
	}
	if c.InodeUsageThreshold <= 0 {
		c.InodeUsageThreshold = DefaultInodeUsageThreshold
	}
	if c.MaxAllocs <= 0 {
		c.MaxAllocs = DefaultMaxAllocs
	}
	if c.ParallelDestroys <= 0 {
		c.ParallelDestroys = DefaultParallelDestroys
	}
	return c
}

// Alloc is what the rules know of one allocation the client holds.
type Alloc struct {
	ID string
	// Terminal: every task is dead, nothing of it runs. Only terminal
	// allocations are ever chosen.
	Terminal bool
	// TerminalAt is when it became terminal (its last task's finish);
	// the oldest go first.
	TerminalAt time.Time
}

// DiskUsage is the alloc dir filesystem's use, in percent.
type DiskUsage struct {
	UsedPercent, InodesUsedPercent float64
}

// Pressure returns why the client is over its limits with n allocations
// and usage u, or "" when it is not. Disk comes first, then inodes, then
// the count, as Nomad's client checks them.
func Pressure(u DiskUsage, n int, c Config) string {
	switch {
	case u.UsedPercent > c.DiskUsageThreshold:
		return fmt.Sprintf("disk usage of %.0f%% is over the gc threshold of %.0f%%", u.UsedPercent, c.DiskUsageThreshold)
	case u.InodesUsedPercent > c.InodeUsageThreshold:
		return fmt.Sprintf("inode usage of %.0f%% is over the gc threshold of %.0f%%", u.InodesUsedPercent, c.InodeUsageThreshold)
	case n > c.MaxAllocs:
		return fmt.Sprintf("number of allocations (%d) is over the limit (%d)", n, c.MaxAllocs)
	}
	return ""
}

// Oldest returns the terminal allocations of allocs, oldest first (by
// TerminalAt, then ID so equal times have one order). The caller owns the
// returned slice; allocs is not modified.
func Oldest(allocs []Alloc) []Alloc {
	var out []Alloc
	for _, a := range allocs {
		if a.Terminal {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].TerminalAt.Equal(out[j].TerminalAt) {
			return out[i].TerminalAt.Before(out[j].TerminalAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Decision is what to destroy now, and why.
type Decision struct {
	Destroy []string // alloc IDs, oldest first
	Reason  string   // "" when nothing is over its limit
}

// Decide picks the allocations to destroy now: over the count limit, the
// oldest terminal ones that bring the count down to MaxAllocs (or all
// terminal ones when that is not enough); over the disk or inode
// threshold, the one oldest terminal allocation (the caller measures
// again after destroying it, and asks again). A live allocation is never
// chosen. Decide is pure: same input, same output.
func Decide(allocs []Alloc, u DiskUsage, c Config) Decision {
	reason := Pressure(u, len(allocs), c)
	if reason == "" {
		return Decision{}
	}
	old := Oldest(allocs)
	n := 0
	if over := len(allocs) - c.MaxAllocs; over > 0 {
		n = over
	}
	diskOver := u.UsedPercent > c.DiskUsageThreshold || u.InodesUsedPercent > c.InodeUsageThreshold
	if diskOver && n < 1 {
		n = 1
	}
	n = min(n, len(old))
	d := Decision{Reason: reason}
	for _, a := range old[:n] {
		d.Destroy = append(d.Destroy, a.ID)
	}
	return d
}

// AllTerminal returns every terminal allocation's ID, oldest first (node
// gc: collect them all now).
func AllTerminal(allocs []Alloc) []string {
	var out []string
	for _, a := range Oldest(allocs) {
		out = append(out, a.ID)
	}
	return out
}
