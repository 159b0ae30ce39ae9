// Package reconcile decides, as a pure function of a job, its allocations
// and the nodes that can no longer run them, what a scheduler must place,
// stop, update in place and leave alone; it knows nothing of feasibility,
// ranking or placement onto nodes.
package reconcile
