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
}

// NewFleet builds n nodes talking to the servers' RPC addresses. Batch
// allocations complete runFor after they run (0: never).
func NewFleet(servers []string, n, conns int, runFor time.Duration, logger hclog.Logger) *Fleet {
	conns = max(conns, 1)
	f := &Fleet{}
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
// its heartbeat and allocation watch (which retries failed calls for
// ever: Count.Errors counts them).
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
		go func() { defer f.wg.Done(); n.Watch(ctx) }()
	}
	return nil
}

// Stop ends the nodes' goroutines and closes the connections.
func (f *Fleet) Stop() {
	if f.cancel != nil {
		f.cancel()
	}
	done := make(chan struct{})
	go func() {
		for _, p := range f.pools { // ends the blocking queries at once
			_ = p.Close()
		}
		f.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		// A stuck call, or yamux's Session.Close waiting on a stream
		// lock under load (seen with 10,000 nodes): the process exits
		// anyway.
	}
}
