package client

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/structs"
)

// batchInterval is the least time between two Node.UpdateAlloc calls: the
// first change goes out at once, later ones are gathered for up to this long.
const batchInterval = 10 * time.Millisecond

// batcher sends allocation status updates to the servers in batches,
// keeping only the newest update per allocation, and retries failures.
type batcher struct {
	rpc    RPCer
	region string
	secret string // the node's SecretID, sent as AuthToken
	logger hclog.Logger

	mu      sync.Mutex // guards pending
	pending map[string]*structs.Allocation
	notify  chan struct{} // cap 1: pending is not empty
}

// newBatcher returns a batcher sending to rpc in region, authenticated as
// the node whose SecretID is secret.
func newBatcher(rpc RPCer, region, secret string, logger hclog.Logger) *batcher {
	return &batcher{rpc: rpc, region: region, secret: secret, logger: logger,
		pending: map[string]*structs.Allocation{}, notify: make(chan struct{}, 1)}
}

// add queues an update, replacing any older one for the same allocation.
// It never blocks; callable from any goroutine.
func (b *batcher) add(a *structs.Allocation) {
	b.mu.Lock()
	b.pending[a.ID] = a
	b.mu.Unlock()
	select {
	case b.notify <- struct{}{}:
	default:
	}
}

// take empties pending and returns its updates.
func (b *batcher) take() []*structs.Allocation {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*structs.Allocation, 0, len(b.pending))
	for _, a := range b.pending {
		out = append(out, a)
	}
	clear(b.pending)
	return out
}

// putBack re-queues failed updates unless newer ones arrived meanwhile.
func (b *batcher) putBack(batch []*structs.Allocation) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range batch {
		if _, newer := b.pending[a.ID]; !newer {
			b.pending[a.ID] = a
		}
	}
}

// run sends batches until ctx ends, then makes one last attempt to flush.
func (b *batcher) run(ctx context.Context) {
	var last time.Time
	backoff := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			b.send(b.take())
			return
		case <-b.notify:
		}
		wait := batchInterval - time.Since(last)
		if backoff > 0 {
			wait = backoff
		}
		if wait > 0 && !sleepCtx(ctx, wait) {
			b.send(b.take())
			return
		}
		batch := b.take()
		if len(batch) == 0 {
			continue
		}
		last = time.Now()
		if err := b.send(batch); err != nil {
			b.putBack(batch)
			backoff = nextBackoff(backoff)
			b.logger.Warn("sending alloc updates failed", "error", err, "retry_in", backoff)
			select {
			case b.notify <- struct{}{}:
			default:
			}
			continue
		}
		backoff = 0
	}
}

func (b *batcher) send(batch []*structs.Allocation) error {
	if len(batch) == 0 {
		return nil
	}
	var resp structs.GenericResponse
	return b.rpc.RPC(structs.NodeUpdateAllocRPC, &structs.AllocUpdateRequest{Alloc: batch,
		WriteRequest: structs.WriteRequest{Region: b.region, AuthToken: b.secret}}, &resp)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
