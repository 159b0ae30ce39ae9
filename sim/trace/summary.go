package trace

import "time"

// Summary counts a trace: what `sim run` prints about its workload.
type Summary struct {
	Jobs        int           `json:"jobs"`
	ServiceJobs int           `json:"service_jobs"`
	BatchJobs   int           `json:"batch_jobs"`
	Allocs      int           `json:"allocs"`
	CoreJobs    int           `json:"core_jobs"`
	LastArrival time.Duration `json:"last_arrival"`
}

// Summarize counts t's jobs, by type, their allocations, the jobs asking
// cores, and the last arrival.
func (t *Trace) Summarize() Summary {
	var s Summary
	for i := range t.Jobs {
		j := &t.Jobs[i]
		s.Jobs++
		s.Allocs += j.Count
		if j.Type == "service" {
			s.ServiceJobs++
		} else {
			s.BatchJobs++
		}
		if j.Cores > 0 {
			s.CoreJobs++
		}
		s.LastArrival = max(s.LastArrival, j.Arrival)
	}
	return s
}
