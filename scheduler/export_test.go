package scheduler

// Uncached makes a service or batch scheduler place without its per-eval
// caches by node position, as a reference for the plans the cached
// pipeline must reproduce (cache_equivalence_test.go).
func Uncached(s Scheduler) { s.(*genericScheduler).uncached = true }
