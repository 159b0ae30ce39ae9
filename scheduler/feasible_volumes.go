package scheduler

import (
	"fmt"
	"sort"

	"github.com/nomadish/nomadish/structs"
)

// reasonHostVolumes is Nomad's metric key for a node without the group's
// host volumes (FilterConstraintHostVolumes).
const reasonHostVolumes = "missing compatible host volumes"

// hostVolumeChecker accepts nodes that have every host volume the group
// asks for (volume "x" { type = "host" source = "name" }), writable unless
// the request is read-only. Host volumes are not part of the computed
// class (a node's volumes are its own), so nothing is cached by class.
type hostVolumeChecker struct {
	group string
	asks  []*structs.VolumeRequest // the group's host volume requests, by name
}

func (c *hostVolumeChecker) setTaskGroup(tg *structs.TaskGroup) {
	if c.asks != nil && c.group == tg.Name {
		return
	}
	c.group, c.asks = tg.Name, c.asks[:0]
	if c.asks == nil {
		c.asks = []*structs.VolumeRequest{}
	}
	for _, v := range tg.Volumes {
		if v != nil && v.Type == structs.VolumeTypeHost {
			c.asks = append(c.asks, v)
		}
	}
	sort.Slice(c.asks, func(i, j int) bool { return c.asks[i].Name < c.asks[j].Name })
}

func (c *hostVolumeChecker) Feasible(n *structs.Node) (bool, string) {
	for _, v := range c.asks {
		if ok, _ := structs.HostVolumeFits(n, v); !ok {
			return false, reasonHostVolumes
		}
	}
	return true, ""
}

// explain reports every host volume the node lacks or has read-only for a
// read-write request: `volume "data": host volume "shared" missing`.
func (c *hostVolumeChecker) explain(n *structs.Node, _ *structs.TaskGroup) []string {
	var out []string
	for _, v := range c.asks {
		if ok, reason := structs.HostVolumeFits(n, v); !ok {
			out = append(out, fmt.Sprintf("%s: volume %q: %s", reasonHostVolumes, v.Name, reason))
		}
	}
	return out
}
