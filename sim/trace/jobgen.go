package trace

import (
	"math"
	"time"
)

// service draws one standing service arriving at at.
func (g *generator) service(at time.Duration) Job {
	p := &g.p
	j := Job{Arrival: at, Type: "service", Priority: g.priority(p.ServiceBands)}
	cpuFrac, memFrac := g.size(&p.ServiceSizes)
	j.MemoryMB = g.memoryMB(memFrac)
	if g.rng.Float64() < p.CoresShare {
		j.Cores = min(g.weighted(p.CoreSizes), g.o.NodeCores)
		j.NUMA = "prefer"
		if g.rng.Float64() < p.NUMARequireShare {
			j.NUMA = "require"
		}
	} else {
		j.CPU = g.cpuMHz(cpuFrac)
	}
	j.Count = g.count(p.ServiceCount, &j)
	switch u := g.rng.Float64(); {
	case u < p.SpreadShare:
		j.Spread = []Spread{{Attribute: "${meta.rack}", Weight: 100}}
	case u < p.SpreadShare+p.DistinctHostsShare:
		j.Constraints = append(j.Constraints, Constraint{Operator: "distinct_hosts"})
		j.Count = min(j.Count, g.o.Nodes)
	case u < p.SpreadShare+p.DistinctHostsShare+p.RackLimitShare && g.o.Racks > 0:
		j.Constraints = append(j.Constraints, Constraint{Attribute: "${meta.rack}", Operator: "distinct_property", Value: "2"})
		j.Count = min(j.Count, RackLimit*g.o.Racks)
	}
	g.classConstraint(&j)
	return j
}

// batchJob draws one batch job arriving at at.
func (g *generator) batchJob(at time.Duration) Job {
	p := &g.p
	j := Job{Arrival: at, Type: "batch", Priority: g.priority(p.BatchBands)}
	cpuFrac, memFrac := g.size(&p.BatchSizes)
	j.MemoryMB = g.memoryMB(memFrac)
	j.CPU = g.cpuMHz(cpuFrac)
	j.Count = g.count(p.BatchCount, &j)
	d := g.lognormal(p.BatchDuration)
	j.Duration = time.Duration(math.Min(math.Max(d, float64(MinDuration)), float64(MaxDuration))).Round(time.Second)
	g.classConstraint(&j)
	return j
}

func (g *generator) classConstraint(j *Job) {
	if len(g.o.NodeClasses) == 0 || g.rng.Float64() >= g.p.ClassShare {
		return
	}
	class := g.o.NodeClasses[g.rng.IntN(len(g.o.NodeClasses))]
	j.Constraints = append(j.Constraints, Constraint{Attribute: "${node.class}", Operator: "=", Value: class})
}

// size draws CPU and memory fractions of a node.
func (g *generator) size(s *Sizes) (cpu, mem float64) {
	if len(s.Steps) > 0 {
		var total float64
		for _, st := range s.Steps {
			total += st.Weight
		}
		u := g.rng.Float64() * total
		for _, st := range s.Steps {
			if u < st.Weight {
				return st.CPU, st.Memory
			}
			u -= st.Weight
		}
		last := s.Steps[len(s.Steps)-1]
		return last.CPU, last.Memory
	}
	mem = math.Min(g.lognormal(s.Memory), 1)
	cpu = math.Min(mem*g.lognormal(s.CPUPerMemory), 1)
	return cpu, mem
}

func (g *generator) memoryMB(frac float64) int {
	return max(16, min(g.o.NodeMemoryMB, int(math.Round(frac*float64(g.o.NodeMemoryMB)))))
}

func (g *generator) cpuMHz(frac float64) int {
	return max(10, min(g.o.NodeCPUMHz, int(math.Round(frac*float64(g.o.NodeCPUMHz)))))
}

// count draws a job's allocation count, clipped so the job asks at most
// MaxJobShare of the cluster's memory and cores.
func (g *generator) count(p Pareto, j *Job) int {
	c := int(math.Floor(math.Pow(1-g.rng.Float64(), -1/p.Alpha)))
	c = max(1, min(c, p.Max))
	limit := int(MaxJobShare * float64(g.o.Nodes) * float64(g.o.NodeMemoryMB) / float64(j.MemoryMB))
	if j.Cores > 0 {
		limit = min(limit, int(MaxJobShare*float64(g.o.Nodes*g.o.NodeCores)/float64(j.Cores)))
	}
	return max(1, min(c, limit))
}

// priority picks a band by share, then a priority in it uniformly.
func (g *generator) priority(bands []Band) int {
	var total float64
	for _, b := range bands {
		total += b.Share
	}
	u := g.rng.Float64() * total
	b := bands[len(bands)-1]
	for _, c := range bands {
		if u < c.Share {
			b = c
			break
		}
		u -= c.Share
	}
	return b.Lo + g.rng.IntN(b.Hi-b.Lo+1)
}

func (g *generator) weighted(ws []Weighted) int {
	var total float64
	for _, w := range ws {
		total += w.Weight
	}
	u := g.rng.Float64() * total
	for _, w := range ws {
		if u < w.Weight {
			return w.Value
		}
		u -= w.Weight
	}
	return ws[len(ws)-1].Value
}

func (g *generator) lognormal(l LogNormal) float64 {
	return l.Median * math.Exp(l.Sigma*g.rng.NormFloat64())
}
