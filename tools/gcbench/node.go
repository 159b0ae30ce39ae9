package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// rpcFunc calls the server over its RPC port.
type rpcFunc func(method string, args, reply any) error

// simNode is a node with no processes: it registers, heartbeats, and
// reports every allocation placed on it complete through Node.UpdateAlloc.
type simNode struct {
	rpc      rpcFunc
	id       string
	reported map[string]bool // owned by run's goroutine
	done     atomic.Int64    // allocations reported complete
}

func newSimNode(rpc rpcFunc) *simNode {
	return &simNode{rpc: rpc, id: structs.GenerateUUID(), reported: map[string]bool{}}
}

func (n *simNode) secret() string { return "secret-" + n.id }

// register registers the node with room for millions of tiny tasks.
func (n *simNode) register() (time.Duration, error) {
	node := &structs.Node{
		ID: n.id, SecretID: n.secret(), Name: "gcbench", Datacenter: "dc1", NodePool: "default",
		Status: structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes: map[string]string{"kernel.name": "linux", "driver.raw_exec": "1"},
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: structs.MaxCPU, TotalCpuCores: 8192},
			Memory: structs.NodeMemoryResources{MemoryMB: structs.MaxMemoryMB},
			Disk:   structs.NodeDiskResources{DiskMB: 1 << 30},
		},
		Drivers: map[string]*structs.DriverInfo{"raw_exec": {Detected: true, Healthy: true}},
	}
	var resp structs.NodeUpdateResponse
	if err := n.rpc(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: node}, &resp); err != nil {
		return 0, fmt.Errorf("registering the node: %w", err)
	}
	return resp.HeartbeatTTL, nil
}

// heartbeat keeps the node ready until ctx ends.
func (n *simNode) heartbeat(ctx context.Context, ttl time.Duration) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(ttl / 3):
		}
		var resp structs.NodeUpdateResponse
		req := &structs.NodeUpdateStatusRequest{NodeID: n.id, SecretID: n.secret(), Status: structs.NodeStatusReady}
		req.AuthToken = n.secret()
		if err := n.rpc(structs.NodeUpdateStatusRPC, req, &resp); err == nil && resp.HeartbeatTTL > 0 {
			ttl = resp.HeartbeatTTL
		}
	}
}

// run watches the node's allocations (a blocking Node.GetClientAllocs, at
// most every poll) and reports the new ones complete in batches, until
// ctx ends.
func (n *simNode) run(ctx context.Context, poll time.Duration) error {
	var index uint64
	for ctx.Err() == nil {
		req := &structs.NodeSpecificRequest{NodeID: n.id, SecretID: n.secret()}
		req.AuthToken, req.MinQueryIndex, req.MaxQueryTime = n.secret(), index, 5*time.Second
		var resp structs.NodeClientAllocsResponse
		if err := n.rpc(structs.NodeGetClientAllocsRPC, req, &resp); err != nil {
			return fmt.Errorf("watching the node's allocations: %w", err)
		}
		index = resp.Index
		var batch []*structs.Allocation
		for id := range resp.Allocs {
			if n.reported[id] {
				continue
			}
			n.reported[id] = true
			batch = append(batch, &structs.Allocation{ID: id, NodeID: n.id, ClientStatus: structs.AllocClientStatusComplete,
				TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateDead}}})
			if len(batch) == 1000 {
				if err := n.report(batch); err != nil {
					return err
				}
				batch = nil
			}
		}
		if err := n.report(batch); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
		case <-time.After(poll):
		}
	}
	return nil
}

func (n *simNode) report(batch []*structs.Allocation) error {
	if len(batch) == 0 {
		return nil
	}
	req := &structs.AllocUpdateRequest{Alloc: batch, WriteRequest: structs.WriteRequest{AuthToken: n.secret()}}
	if err := n.rpc(structs.NodeUpdateAllocRPC, req, &structs.GenericResponse{}); err != nil {
		return fmt.Errorf("reporting %d allocations complete: %w", len(batch), err)
	}
	n.done.Add(int64(len(batch)))
	return nil
}
