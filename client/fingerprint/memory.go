package fingerprint

import (
	"strconv"
	"strings"
)

// fingerprintMemory sets memory.totalbytes and the node's memory from
// MemTotal in /proc/meminfo.
func fingerprintMemory(cfg *Config, r *Result) {
	var kb int64
	eachKeyValue(cfg.path("/proc/meminfo"), ":", func(k, v string) {
		if k != "MemTotal" {
			return
		}
		n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(v, "kB")), 10, 64)
		if err == nil {
			kb = n
		}
	})
	if kb <= 0 {
		return
	}
	r.Attributes["memory.totalbytes"] = itoa(kb * 1024)
	r.Resources.Memory.MemoryMB = kb / 1024
}
