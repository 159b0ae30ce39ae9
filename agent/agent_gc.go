package agent

import (
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/client/allocgc"
)

// clientGC is the client block's gc keys as the client takes them (zero
// fields take Nomad's defaults there).
func clientGC(g config.ClientGCConfig) allocgc.Config {
	return allocgc.Config{Interval: g.Interval, DiskUsageThreshold: g.DiskUsageThreshold,
		InodeUsageThreshold: g.InodeUsageThreshold, MaxAllocs: g.MaxAllocs, ParallelDestroys: g.ParallelDestroys}
}
