package structs

// Resource usage of a running allocation, in the JSON shape of Nomad's
// GET /v1/client/allocation/:id/stats (api.AllocResourceUsage).

// Measured names, as Nomad lists what a driver really measured.
const (
	MeasuredRSS        = "RSS"
	MeasuredSwap       = "Swap"
	MeasuredSystemMode = "System Mode"
	MeasuredUserMode   = "User Mode"
	MeasuredPercent    = "Percent"
	MeasuredTotalTicks = "Total Ticks"
)

// MemoryStats is memory use in bytes; Measured names the fields filled.
type MemoryStats struct {
	RSS            uint64
	Cache          uint64
	Swap           uint64
	Usage          uint64
	MaxUsage       uint64
	KernelUsage    uint64
	KernelMaxUsage uint64
	Measured       []string
}

// CpuStats is CPU use: SystemMode, UserMode and Percent are percentages
// of one core (100 = one core busy) since the previous sample; TotalTicks
// is the MHz consumed (Percent of one core's MHz).
type CpuStats struct {
	SystemMode       float64
	UserMode         float64
	TotalTicks       float64
	ThrottledPeriods uint64
	ThrottledTime    uint64
	Percent          float64
	Measured         []string
}

// ResourceUsage is one task's (or the allocation's summed) usage.
type ResourceUsage struct {
	MemoryStats *MemoryStats
	CpuStats    *CpuStats
}

// TaskResourceUsage is a task's latest sample; Timestamp is unix ns.
// Pids (per-process usage) is not reported: always null.
type TaskResourceUsage struct {
	ResourceUsage *ResourceUsage
	Timestamp     int64
	Pids          map[string]*ResourceUsage
}

// AllocResourceUsage is the usage of an allocation's running tasks and
// their sum; Timestamp is the newest task sample (unix ns).
type AllocResourceUsage struct {
	ResourceUsage *ResourceUsage
	Tasks         map[string]*TaskResourceUsage
	Timestamp     int64
}

// SumAllocUsage sums the tasks' usage into an AllocResourceUsage (the
// Measured lists are the first task's). Tasks may be empty.
func SumAllocUsage(tasks map[string]*TaskResourceUsage) *AllocResourceUsage {
	out := &AllocResourceUsage{Tasks: tasks,
		ResourceUsage: &ResourceUsage{MemoryStats: &MemoryStats{}, CpuStats: &CpuStats{}}}
	if out.Tasks == nil {
		out.Tasks = map[string]*TaskResourceUsage{}
	}
	m, c := out.ResourceUsage.MemoryStats, out.ResourceUsage.CpuStats
	for _, t := range out.Tasks {
		if t == nil || t.ResourceUsage == nil {
			continue
		}
		out.Timestamp = max(out.Timestamp, t.Timestamp)
		if tm := t.ResourceUsage.MemoryStats; tm != nil {
			m.RSS += tm.RSS
			m.Cache += tm.Cache
			m.Swap += tm.Swap
			m.Usage += tm.Usage
			m.MaxUsage += tm.MaxUsage
			m.KernelUsage += tm.KernelUsage
			m.KernelMaxUsage += tm.KernelMaxUsage
			if m.Measured == nil {
				m.Measured = tm.Measured
			}
		}
		if tc := t.ResourceUsage.CpuStats; tc != nil {
			c.SystemMode += tc.SystemMode
			c.UserMode += tc.UserMode
			c.TotalTicks += tc.TotalTicks
			c.ThrottledPeriods += tc.ThrottledPeriods
			c.ThrottledTime += tc.ThrottledTime
			c.Percent += tc.Percent
			if c.Measured == nil {
				c.Measured = tc.Measured
			}
		}
	}
	return out
}
