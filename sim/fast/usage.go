package fast

import (
	"time"

	"github.com/nomadish/nomadish/sim/report"
	"github.com/nomadish/nomadish/structs"
)

// nodeUsage is what the simulator counts of one node, kept up to date on
// every commit so sampling is cheap.
type nodeUsage struct {
	id             string
	ready          bool
	cpuCap, memCap int64
	coreNUMA       map[uint16]int // core ID -> NUMA node index
	freePerNUMA    []int          // free cores per NUMA node
	cores          int
	cpu, mem       int64
	live           map[string]bool // live allocs
}

// allocUsage is one committed alloc's hold.
type allocUsage struct {
	job, node string
	cpu, mem  int64
	cores     []uint16
	live      bool
}

// stats are the run's counters and samples.
type stats struct {
	nodes    map[string]*nodeUsage
	nodeList []*nodeUsage // in registration order
	allocs   map[string]*allocUsage
	// minRequire is the smallest cores ask with NUMA "require" in the
	// trace (0: none): free cores on a node none of whose NUMA nodes has
	// that many free are stranded.
	minRequire int

	jobCount, placements, rejections, preemptions, evictions int
	conflicts, retries, blockedPeak, nodeFailures, evals     int
	// pending counts allocs of arrived, unstopped jobs not placed yet.
	pending int

	queueDelays, placeLatencies []time.Duration
	samples                     []report.Sample
	atFirstRejection            *report.Sample
	throughput                  []report.Rate
}

func (st *stats) init(cfg Config) {
	st.nodes, st.allocs = map[string]*nodeUsage{}, map[string]*allocUsage{}
	for _, j := range cfg.Trace.Jobs {
		if j.NUMA == structs.NUMAAffinityRequire && j.Cores > 0 && (st.minRequire == 0 || j.Cores < st.minRequire) {
			st.minRequire = j.Cores
		}
	}
}

func (st *stats) addNode(n *structs.Node) {
	u := &nodeUsage{id: n.ID, ready: n.Ready(), coreNUMA: map[uint16]int{}, live: map[string]bool{}}
	c := n.Comparable()
	u.cpuCap, u.memCap = c.CpuShares, c.MemoryMB
	if t := n.CoreTopology(); t != nil {
		idx := map[uint8]int{}
		for i, id := range t.Nodes {
			idx[id] = i
		}
		u.freePerNUMA = make([]int, len(t.Nodes))
		for _, core := range t.Cores {
			if n.UsableCore(core) {
				u.coreNUMA[core.ID] = idx[core.NodeID]
				u.freePerNUMA[idx[core.NodeID]]++
				u.cores++
			}
		}
	}
	st.nodes[n.ID] = u
	st.nodeList = append(st.nodeList, u)
}

// committed books a committed plan: new placements hold resources from
// now (and start after the start delay), stops and preemptions free them.
func (s *Sim) committed(req *structs.ApplyPlanResultsRequest) {
	var started []string
	for _, a := range req.AllocsPlaced {
		if _, seen := s.allocs[a.ID]; seen || a.TerminalStatus() {
			continue // an in-place update
		}
		u := &allocUsage{job: a.JobID, node: a.NodeID, live: true}
		c := a.AllocatedResources.Comparable()
		u.cpu, u.mem = c.CpuShares, c.MemoryMB
		if a.AllocatedResources != nil {
			for _, t := range a.AllocatedResources.Tasks {
				u.cores = append(u.cores, t.Cpu.ReservedCores...)
			}
		}
		s.allocs[a.ID] = u
		s.hold(u, a.ID, +1)
		s.placements++
		started = append(started, a.ID)
		if j := s.jobs[a.JobID]; j != nil {
			if j.placed < j.count && !j.stopped {
				s.pending--
			}
			j.placed++
			if !j.placedAll && j.placed >= j.count {
				j.placedAll = true
				s.placeLatencies = append(s.placeLatencies, s.now-j.arrival)
			}
			if j.typ == structs.JobTypeService && j.duration > 0 && !j.stopping {
				j.stopping = true
				s.schedule(s.now+s.cfg.StartDelay+j.duration, &event{kind: evStopJob, eval: &structs.Evaluation{JobID: a.JobID}})
			}
		}
	}
	for _, a := range req.AllocsStopped {
		s.release(a.ID)
	}
	for _, a := range req.AllocsPreempted {
		s.release(a.ID)
	}
	s.preemptions += len(req.AllocsPreempted)
	if len(started) > 0 {
		s.schedule(s.now+s.cfg.StartDelay, &event{kind: evStart, allocs: started})
	}
}

// hold adds (sign +1) or removes (-1) an alloc's resources on its node.
func (st *stats) hold(u *allocUsage, id string, sign int) {
	n := st.nodes[u.node]
	if n == nil {
		return
	}
	n.cpu += int64(sign) * u.cpu
	n.mem += int64(sign) * u.mem
	for _, c := range u.cores {
		if i, ok := n.coreNUMA[c]; ok {
			n.freePerNUMA[i] -= sign
		}
	}
	if sign > 0 {
		n.live[id] = true
	} else {
		delete(n.live, id)
	}
}

// release frees a live alloc's resources (once).
func (st *stats) release(id string) {
	u := st.allocs[id]
	if u == nil || !u.live {
		return
	}
	u.live = false
	st.hold(u, id, -1)
}

// liveOnly keeps the IDs of allocs still holding resources.
func (st *stats) liveOnly(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if u := st.allocs[id]; u != nil && u.live {
			out = append(out, id)
		}
	}
	return out
}

// evalOutcome counts an eval's failed placements (the scheduler's
// FailedTGAllocs: one metric per group, CoalescedFailures more) and
// samples the cluster at the first that failed for lack of room (some
// node was exhausted).
func (s *Sim) evalOutcome(e *structs.Evaluation) {
	for _, m := range e.FailedTGAllocs {
		if m == nil {
			continue
		}
		s.rejections += 1 + m.CoalescedFailures
		if s.atFirstRejection == nil && m.NodesExhausted > 0 { // for lack of room, not a constraint
			smp := s.utilization()
			s.atFirstRejection = &smp
		}
	}
}
