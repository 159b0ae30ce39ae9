package fingerprint

import (
	"fmt"
	"os"
	"syscall"
)

// fingerprintDisk sets unique.storage.* and the node's disk (free MB) from
// statfs of the data dir.
func fingerprintDisk(cfg *Config, r *Result) error {
	dir := cfg.DataDir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return fmt.Errorf("fingerprinting disk: %w", err)
		}
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return fmt.Errorf("fingerprinting disk of %q: %w", dir, err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	total := int64(st.Blocks) * int64(st.Bsize)
	r.Attributes["unique.storage.volume"] = dir
	r.Attributes["unique.storage.bytestotal"] = itoa(total)
	r.Attributes["unique.storage.bytesfree"] = itoa(free)
	r.Resources.Disk.DiskMB = free / (1024 * 1024)
	return nil
}
