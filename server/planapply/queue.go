package planapply

import (
	"container/heap"
	"context"

	"github.com/nomadish/nomadish/structs"
)

// pending is a submitted plan waiting for its result.
type pending struct {
	ctx  context.Context // the submitter's; a plan whose ctx ended is skipped
	plan *structs.Plan
	seq  uint64
	done chan outcome // capacity 1: Run never blocks on it
}

type outcome struct {
	res *structs.PlanResult
	err error
}

func (p *pending) finish(res *structs.PlanResult, err error) {
	p.done <- outcome{res, err}
}

// planQueue orders plans: higher Priority first, then submission order.
type planQueue []*pending

func (q planQueue) Len() int { return len(q) }
func (q planQueue) Less(i, j int) bool {
	if q[i].plan.Priority != q[j].plan.Priority {
		return q[i].plan.Priority > q[j].plan.Priority
	}
	return q[i].seq < q[j].seq
}
func (q planQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *planQueue) Push(x any)   { *q = append(*q, x.(*pending)) }
func (q *planQueue) Pop() any {
	old := *q
	n := len(old)
	x := old[n-1]
	old[n-1] = nil
	*q = old[:n-1]
	return x
}

var _ heap.Interface = (*planQueue)(nil)
