// Command simnodes registers simulated client nodes (no processes: they
// register and heartbeat, nothing runs) against a server's RPC port, so
// that the web UI's topology page can be seen and timed with thousands of
// nodes. It keeps them ready until interrupted.
//
//	nomadish agent -dev ...   # then
//	go run ./tools/simnodes -rpc 127.0.0.1:4647 -nodes 2000 -dcs 3
//	nomadish job run many.hcl # a job with a large count fills them
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

func main() {
	addr := flag.String("rpc", "127.0.0.1:4647", "the server's RPC address")
	n := flag.Int("nodes", 2000, "how many nodes")
	dcs := flag.Int("dcs", 3, "spread over this many datacenters (dc1, dc2, ...)")
	flag.Parse()
	pool := rpcclient.NewPool(nil, hclog.NewNullLogger())
	defer pool.Close()
	rpc := func(method string, args, reply any) error { return pool.RPC(*addr, method, args, reply) }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range *n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := simNode(ctx, rpc, i, *dcs); err != nil {
				fmt.Fprintln(os.Stderr, "simnodes:", err)
			}
		}()
	}
	wg.Wait()
	fmt.Fprintf(os.Stderr, "simnodes: %d nodes registered in %v; heartbeating until interrupted\n", *n, time.Since(start).Round(time.Millisecond))
	<-ctx.Done()
}

// simNode registers node i, then heartbeats it in the background.
func simNode(ctx context.Context, rpc func(string, any, any) error, i, dcs int) error {
	id := structs.GenerateUUID()
	secret := "secret-" + id
	node := &structs.Node{
		ID: id, SecretID: secret, Name: fmt.Sprintf("sim-%05d", i), Datacenter: fmt.Sprintf("dc%d", 1+i%dcs),
		NodePool: "default", Status: structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes: map[string]string{"kernel.name": "linux", "driver.raw_exec": "1", "unique.network.ip-address": "192.0.2.10"},
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: 16000, TotalCpuCores: 8},
			Memory: structs.NodeMemoryResources{MemoryMB: 32768},
			Disk:   structs.NodeDiskResources{DiskMB: 100000},
		},
		Drivers: map[string]*structs.DriverInfo{"raw_exec": {Detected: true, Healthy: true}},
	}
	var resp structs.NodeUpdateResponse
	if err := rpc(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: node}, &resp); err != nil {
		return fmt.Errorf("registering node %d: %w", i, err)
	}
	go func() {
		ttl := resp.HeartbeatTTL
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(ttl / 3):
			}
			var r structs.NodeUpdateResponse
			req := &structs.NodeUpdateStatusRequest{NodeID: id, SecretID: secret, Status: structs.NodeStatusReady}
			req.AuthToken = secret
			if err := rpc(structs.NodeUpdateStatusRPC, req, &r); err == nil && r.HeartbeatTTL > 0 {
				ttl = r.HeartbeatTTL
			}
		}
	}()
	return nil
}
