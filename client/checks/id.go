package checks

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/nomadish/nomadish/structs"
)

// CheckID is the stable ID of a check of an allocation: a hash of the
// allocation, the group, the service's owner (group or task), the service
// and the check's name and type. It keys the results (alloc checks).
func CheckID(allocID, group, task, service string, c *structs.ServiceCheck) string {
	h := sha256.New()
	for _, s := range []string{allocID, group, task, service, c.Name, c.Type, c.Path, c.Command, c.PortLabel} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Mode is a check's mode in a CheckQueryResult: "readiness" for a check
// with on_update "ignore" (it does not count in deployment health),
// "healthiness" otherwise (Nomad's terms).
func Mode(c *structs.ServiceCheck) string {
	if c.OnUpdate == structs.OnUpdateIgnore {
		return "readiness"
	}
	return "healthiness"
}
