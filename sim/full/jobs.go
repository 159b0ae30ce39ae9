package full

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// jobCounts splits allocs over jobs as evenly as it can (the first ones
// take the remainder).
func jobCounts(allocs, jobs int) []int {
	out := make([]int, jobs)
	for i := range out {
		out[i] = allocs / jobs
		if i < allocs%jobs {
			out[i]++
		}
	}
	return out
}

// simJob is one job of the run: one group of count tiny raw_exec tasks
// (the simulated nodes run nothing), batch or service.
func simJob(id, typ string, count int) *structs.Job {
	return &structs.Job{ID: id, Name: id, Type: typ, Priority: 50,
		Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{Name: "g", Count: count, Tasks: []*structs.Task{{
			Name: "t", Driver: "raw_exec", Config: map[string]any{"command": "/bin/true"},
			Resources: &structs.Resources{CPU: 1, MemoryMB: structs.MinMemoryMB},
		}}}}}
}

// submitJobs registers the jobs (Job.Register) from parallel goroutines
// and returns the first error; lat notes when each was sent.
func submitJobs(rpc rpcFunc, ids []string, typ string, counts []int, parallel int, lat *Latencies) error {
	var next atomic.Int64
	errs := make(chan error, parallel)
	var wg sync.WaitGroup
	for g := 0; g < parallel; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(ids) {
					return
				}
				req := &structs.JobRegisterRequest{Job: simJob(ids[i], typ, counts[i])}
				lat.Submitted(ids[i], time.Now())
				if err := rpc(structs.JobRegisterRPC, req, &structs.JobRegisterResponse{}); err != nil {
					errs <- fmt.Errorf("registering job %s: %w", ids[i], err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
