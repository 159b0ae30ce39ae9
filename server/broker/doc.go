// Package broker holds the leader's evaluation queues: the EvalBroker hands
// pending evaluations to scheduler workers (priority order, one in flight per
// job, ack/nack with redelivery) and BlockedEvals parks evaluations that could
// not place everything until cluster capacity changes.
//
// Both types are a pure core (core.go, the queue bookkeeping with no clocks or
// goroutines) wrapped by a mutex-guarded shell that owns timers and wakes
// blocked Dequeue callers. Both are only enabled on the leader.
package broker
