package full

import (
	"cmp"
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// rpcFunc calls a server over the RPC port (a Fleet's shared pool).
type rpcFunc func(method string, args, reply any) error

// watchWait is the longest a Node.GetClientAllocs blocking query waits,
// as the real client's allocWatchMaxWait.
const watchWait = 5 * time.Minute

// Counters are what a fleet's nodes did, summed over them; safe for
// concurrent use.
type Counters struct {
	Placed     atomic.Int64 // allocations a node saw placed on it
	Running    atomic.Int64 // allocations reported running (the server acknowledged)
	Completed  atomic.Int64 // allocations reported complete
	Heartbeats atomic.Int64 // Node.UpdateStatus calls answered
	Errors     atomic.Int64 // failed watch calls (retried)
	Latency    Latencies    // submission to running, per allocation
}

// Node is a simulated client: no processes, the real client's protocol.
// Its methods run on the goroutines Fleet starts; known is owned by
// watch's goroutine.
type Node struct {
	ID   string
	Name string
	// CPU is the node's MHz (each simulated allocation asks 1); 0 is
	// structs.MaxCPU, room for every placement. Set before Register.
	CPU    int64
	rpc    rpcFunc
	count  *Counters
	runFor time.Duration // batch allocations complete after this (0: never)
	known  map[string]uint64
}

func newNode(i int, rpc rpcFunc, count *Counters, runFor time.Duration) *Node {
	return &Node{ID: structs.GenerateUUID(), Name: fmt.Sprintf("sim-node-%05d", i), rpc: rpc, count: count,
		runFor: runFor, known: map[string]uint64{}}
}

func (n *Node) secret() string { return "secret-" + n.ID }

// Register registers the node (Node.Register with its secret) with room
// for many tiny allocations, and returns the heartbeat TTL the server set.
func (n *Node) Register() (time.Duration, error) {
	node := &structs.Node{
		ID: n.ID, SecretID: n.secret(), Name: n.Name, Datacenter: "dc1", NodePool: "default",
		Status: structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes: map[string]string{"kernel.name": "linux", "driver.raw_exec": "1", "unique.hostname": n.Name},
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: cmp.Or(n.CPU, structs.MaxCPU), TotalCpuCores: 8192},
			Memory: structs.NodeMemoryResources{MemoryMB: structs.MaxMemoryMB},
			Disk:   structs.NodeDiskResources{DiskMB: 1 << 30},
		},
		Drivers: map[string]*structs.DriverInfo{"raw_exec": {Detected: true, Healthy: true}},
	}
	var resp structs.NodeUpdateResponse
	if err := n.rpc(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: node}, &resp); err != nil {
		return 0, fmt.Errorf("registering node %s: %w", n.Name, err)
	}
	return resp.HeartbeatTTL, nil
}

// Heartbeat keeps the node ready until ctx ends: Node.UpdateStatus at a
// third of the TTL the server returned (the real client heartbeats well
// inside its TTL), following the TTL each answer carries.
func (n *Node) Heartbeat(ctx context.Context, ttl time.Duration) {
	if ttl <= 0 {
		ttl = 10 * time.Second
	}
	t := time.NewTimer(ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var resp structs.NodeUpdateResponse
		req := &structs.NodeUpdateStatusRequest{NodeID: n.ID, SecretID: n.secret(), Status: structs.NodeStatusReady}
		req.AuthToken = n.secret()
		if err := n.rpc(structs.NodeUpdateStatusRPC, req, &resp); err == nil {
			n.count.Heartbeats.Add(1)
			if resp.HeartbeatTTL > 0 {
				ttl = resp.HeartbeatTTL
			}
		}
		t.Reset(ttl / 3)
	}
}

// Watch long-polls the node's allocations like the real client: a
// blocking Node.GetClientAllocs, then Alloc.GetAllocs for those whose
// AllocModifyIndex moved; the new ones it reports running in one
// Node.UpdateAlloc (one call per wake-up: the real client's per-node
// batch) and, with runFor set, batch ones complete after it. Like the real
// client it retries failed calls for ever, backing off up to 5 s (a
// dropped connection is redialed by the pool), counting them in
// Counters.Errors, until ctx ends.
func (n *Node) Watch(ctx context.Context) {
	var index uint64
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		if err := n.sync(ctx, &index); err == nil || ctx.Err() != nil {
			backoff = 0
			continue
		}
		n.count.Errors.Add(1)
		backoff = min(backoff+250*time.Millisecond, 5*time.Second)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
	}
}

func (n *Node) sync(ctx context.Context, index *uint64) error {
	req := &structs.NodeSpecificRequest{NodeID: n.ID, SecretID: n.secret()}
	req.AuthToken, req.MinQueryIndex, req.MaxQueryTime, req.AllowStale = n.secret(), *index, watchWait, true
	var resp structs.NodeClientAllocsResponse
	if err := n.rpc(structs.NodeGetClientAllocsRPC, req, &resp); err != nil {
		return fmt.Errorf("watching the allocations: %w", err)
	}
	if ctx.Err() != nil {
		return nil
	}
	var pull []string
	for id, idx := range resp.Allocs {
		if have, ok := n.known[id]; !ok || idx > have {
			pull = append(pull, id)
		}
	}
	if len(pull) > 0 {
		if err := n.pull(pull, resp.Index); err != nil {
			return err
		}
	}
	*index = max(*index, resp.Index)
	return nil
}

// pull fetches allocations and reports the new runnable ones running.
func (n *Node) pull(ids []string, index uint64) error {
	areq := &structs.AllocsGetRequest{AllocIDs: ids}
	areq.AuthToken, areq.MinQueryIndex, areq.MaxQueryTime, areq.AllowStale = n.secret(), max(index, 1)-1, watchWait, true
	var got allocsAnswer // node_allocs.go
	if err := n.rpc(structs.AllocGetAllocsRPC, areq, &got); err != nil {
		return fmt.Errorf("fetching %d allocations: %w", len(ids), err)
	}
	var running, done []*structs.Allocation
	byJob := map[string]int{} // the running ones per job, for latencies
	for _, a := range got.Allocs {
		_, seen := n.known[a.ID]
		n.known[a.ID] = a.AllocModifyIndex
		if seen || a.DesiredStatus != structs.AllocDesiredStatusRun || a.clientTerminal() {
			continue
		}
		n.count.Placed.Add(1)
		running = append(running, n.update(a, structs.AllocClientStatusRunning, structs.TaskStateRunning))
		byJob[a.JobID]++
		if n.runFor > 0 && a.Job != nil && a.Job.Type == structs.JobTypeBatch {
			done = append(done, n.update(a, structs.AllocClientStatusComplete, structs.TaskStateDead))
		}
	}
	if err := n.report(running); err != nil {
		for _, a := range running { // fetch and report them again on the retry
			delete(n.known, a.ID)
		}
		n.count.Placed.Add(-int64(len(running)))
		return err
	}
	n.count.Running.Add(int64(len(running)))
	now := time.Now()
	for job, k := range byJob {
		n.count.Latency.Ran(job, k, now)
	}
	if len(done) > 0 {
		time.AfterFunc(n.runFor, func() {
			if n.report(done) == nil {
				n.count.Completed.Add(int64(len(done)))
			}
		})
	}
	return nil
}

func (n *Node) update(a *simAlloc, status, task string) *structs.Allocation {
	states := map[string]*structs.TaskState{}
	for _, name := range a.taskNames() {
		states[name] = &structs.TaskState{State: task}
	}
	return &structs.Allocation{ID: a.ID, NodeID: n.ID, ClientStatus: status, TaskStates: states}
}

func (n *Node) report(batch []*structs.Allocation) error {
	if len(batch) == 0 {
		return nil
	}
	req := &structs.AllocUpdateRequest{Alloc: batch, WriteRequest: structs.WriteRequest{AuthToken: n.secret()}}
	if err := n.rpc(structs.NodeUpdateAllocRPC, req, &structs.GenericResponse{}); err != nil {
		return fmt.Errorf("reporting %d allocations: %w", len(batch), err)
	}
	return nil
}
