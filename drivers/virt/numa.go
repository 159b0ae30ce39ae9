package virt

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sysCPU is where the kernel lists each CPU's NUMA node (cpuN/nodeM links).
const sysCPU = "/sys/devices/system/cpu"

// coreNodes returns the host NUMA node of each core, read from sysfs under
// root (sysCPU in production). A kernel without NUMA (no nodeM link) puts
// every core on node 0.
func coreNodes(root string, cores []uint16) ([]int, error) {
	out := make([]int, len(cores))
	for i, c := range cores {
		dir := filepath.Join(root, "cpu"+strconv.Itoa(int(c)))
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("virt: reserved core %d: %w", c, err)
		}
		links, _ := filepath.Glob(filepath.Join(dir, "node[0-9]*"))
		for _, l := range links {
			if n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(l), "node")); err == nil {
				out[i] = n
				break
			}
		}
	}
	return out, nil
}
