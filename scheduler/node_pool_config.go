package scheduler

import "github.com/nomadish/nomadish/structs"

// NodePoolState is an optional interface of State (CONVENTIONS 3): a state
// that knows node pools lets a pool's scheduler configuration override the
// cluster's for the jobs in the pool.
type NodePoolState interface {
	// NodePoolByName returns the pool, nil,nil when absent.
	NodePoolByName(name string) (*structs.NodePool, error)
}

// jobSchedulerConfig returns the scheduler configuration a job is placed
// with: the cluster's, with the job's node pool's overrides applied
// (algorithm, memory oversubscription) when st knows pools.
func jobSchedulerConfig(st State, job *structs.Job) (*structs.SchedulerConfiguration, error) {
	cfg, err := st.SchedulerConfig()
	if err != nil || job == nil {
		return cfg, err
	}
	ps, ok := st.(NodePoolState)
	if !ok {
		return cfg, nil
	}
	pool, err := ps.NodePoolByName(job.NodePool)
	if err != nil {
		return nil, err
	}
	return pool.ApplyTo(cfg), nil
}
