package full

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/rpcclient"
)

// Fleet is N simulated nodes sharing conns RPC connections per server
// (one rpcclient.Pool holds one yamux session per server; node i uses
// pool i%conns and server i%len(servers), as real clients spread over the
// servers). Start registers them; Stop ends their goroutines.
type Fleet struct {
	Nodes  []*Node
	Count  Counters
	pools  []*rpcclient.Pool
	cancel context.CancelFunc
	wg     sync.WaitGroup
	errs   chan error
}

// NewFleet builds n nodes talking to the servers' RPC addresses. Batch
// allocations complete runFor after they run (0: never).
func NewFleet(servers []string, n, conns int, runFor time.Duration, logger hclog.Logger) *Fleet {
	conns = max(conns, 1)
	f := &Fleet{errs: make(chan error, 1)}
	for i := 0; i < conns; i++ {
		f.pools = append(f.pools, rpcclient.NewPool(nil, logger))
	}
	for i := 0; i < n; i++ {
		pool, addr := f.pools[i%conns], servers[i%len(servers)]
		rpc := func(method string, args, reply any) error { return pool.RPC(addr, method, args, reply) }
		f.Nodes = append(f.Nodes, newNode(i, rpc, &f.Count, runFor))
	}
	return f
}

// Start registers every node (parallel goroutines at once) and starts
// its heartbeat and allocation watch. The first watch error that retries
// did not cure is sent on Errs.
func (f *Fleet) Start(parallel int) error {
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	ttls := make([]time.Duration, len(f.Nodes))
	var next sync.Mutex
	i := 0
	errc := make(chan error, parallel)
	var reg sync.WaitGroup
	for g := 0; g < max(parallel, 1); g++ {
		reg.Add(1)
		go func() {
			defer reg.Done()
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= len(f.Nodes) {
					return
				}
				ttl, err := f.Nodes[k].Register()
				if err != nil {
					errc <- err
					return
				}
				ttls[k] = ttl
			}
		}()
	}
	reg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return err
	}
	for k, n := range f.Nodes {
		f.wg.Add(2)
		go func() { defer f.wg.Done(); n.Heartbeat(ctx, ttls[k]) }()
		go func() {
			defer f.wg.Done()
			if err := n.Watch(ctx); err != nil {
				select {
				case f.errs <- err:
				default:
				}
			}
		}()
	}
	return nil
}

// Errs carries the first node error.
func (f *Fleet) Errs() <-chan error { return f.errs }

// Stop ends the nodes' goroutines and closes the connections.
func (f *Fleet) Stop() {
	if f.cancel != nil {
		f.cancel()
	}
	for _, p := range f.pools { // ends the blocking queries at once
		_ = p.Close()
	}
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // a stuck call; the process exits anyway
	}
}
