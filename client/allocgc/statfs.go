package allocgc

import (
	"fmt"
	"syscall"
)

// StatFS measures a filesystem with statfs(2). A filesystem reporting no
// inodes (some do not count them) uses 0% of them.
type StatFS struct{}

// Usage returns the used percentages of blocks and inodes of the
// filesystem holding dir.
func (StatFS) Usage(dir string) (DiskUsage, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return DiskUsage{}, fmt.Errorf("statfs %s: %w", dir, err)
	}
	var u DiskUsage
	// As df and gopsutil (Nomad's measure): the blocks reserved for root
	// count neither as used nor as available.
	used := float64(st.Blocks - st.Bfree)
	if avail := used + float64(st.Bavail); avail > 0 {
		u.UsedPercent = 100 * used / avail
	}
	if st.Files > 0 {
		u.InodesUsedPercent = 100 * float64(st.Files-st.Ffree) / float64(st.Files)
	}
	return u, nil
}
