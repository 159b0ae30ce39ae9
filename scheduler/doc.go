// Package scheduler decides where allocations run: given a read-only view of
// the cluster (State) and an evaluation, it reconciles a job's desired groups
// against its existing allocations, places what is missing through a chain of
// small feasibility and rank iterators, and hands the result to a Planner as a
// Plan. It is pure: no network, no raft, no clocks but the injected Now, and
// node shuffles are seeded from the eval ID and state index so a placement can
// be replayed from a snapshot.
package scheduler
