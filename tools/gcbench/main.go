// Command gcbench measures what server garbage collection gives back: it
// starts an in-process server (raft on disk in a temp dir), registers
// -jobs one-task batch jobs through the RPC port and raft, has simulated
// nodes (no processes) complete them, and reports as JSON the heap and RSS
// of the idle server, after the jobs completed and after `system gc`, and
// the raft snapshot's size before and after the collection.
//
//	go run ./tools/gcbench -jobs 10000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/server"
	"github.com/nomadish/nomadish/structs"
)

// Report is the program's output.
type Report struct {
	Jobs                  int
	Nodes                 int
	RegisterSeconds       float64 // registering every job
	CompleteSeconds       float64 // until every job is dead
	GCSeconds             float64 // System.GarbageCollect
	Idle                  Memory  // the server with one node, no jobs
	Complete              Memory  // every job completed
	AfterGC               Memory  // after system gc
	SnapshotBytesIdle     int
	SnapshotBytesComplete int
	SnapshotBytesAfterGC  int
	Left                  map[string]int // jobs, evals, allocs left after GC
	RSSAfterGCOverIdle    float64        // AfterGC.RSSMB / Idle.RSSMB
}

func main() {
	jobs := flag.Int("jobs", 100000, "batch jobs to register and complete")
	parallel := flag.Int("parallel", 32, "goroutines registering jobs")
	numNodes := flag.Int("nodes", 20, "simulated nodes (the scheduler scans a node's allocations: one node makes placement quadratic)")
	heapProfile := flag.String("heapprofile", "", "write a heap profile after the collection to this file")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this address (e.g. 127.0.0.1:6060)")
	flag.Parse()
	if *heapProfile != "" {
		runtime.MemProfileRate = 4096 // a finer profile of what the collection left
	}
	if *pprofAddr != "" {
		go func() { _ = http.ListenAndServe(*pprofAddr, nil) }()
	}
	rep, err := run(*jobs, *parallel, *numNodes, *heapProfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gcbench:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(rep)
}

func run(n, parallel, numNodes int, heapProfile string) (*Report, error) {
	dir, err := os.MkdirTemp("", "gcbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	logger := hclog.New(&hclog.LoggerOptions{Name: "gcbench", Level: hclog.Warn, Output: os.Stderr})
	s, err := server.NewServer(&server.Config{DataDir: dir, RPCAddr: "127.0.0.1:0", BootstrapExpect: 1,
		NumSchedulers: runtime.NumCPU(), Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	defer s.Shutdown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := s.WaitForLeader(wctx); err != nil {
		return nil, err
	}
	pool := rpcclient.NewPool(nil, logger)
	defer pool.Close()
	rpc := func(method string, args, reply any) error { return pool.RPC(s.RPCAddr(), method, args, reply) }

	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	nodes := make([]*simNode, numNodes)
	nodeErr := make(chan error, numNodes)
	for i := range nodes {
		node := newSimNode(rpc)
		ttl, err := node.register()
		if err != nil {
			return nil, err
		}
		nodes[i] = node
		wg.Add(2)
		go func() { defer wg.Done(); node.heartbeat(ctx, ttl) }()
		go func() { defer wg.Done(); nodeErr <- node.run(ctx, time.Second) }()
	}

	rep := &Report{Jobs: n, Nodes: numNodes}
	time.Sleep(2 * time.Second) // let start-up settle before the idle reading
	rep.Idle = readMemory()
	if rep.SnapshotBytesIdle, err = snapshotSize(s); err != nil {
		return nil, err
	}

	start := time.Now()
	if err := registerJobs(rpc, n, parallel); err != nil {
		return nil, err
	}
	rep.RegisterSeconds = time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "gcbench: %d jobs registered in %.1fs\n", n, rep.RegisterSeconds)
	if err := waitDead(s, n, nodes, nodeErr); err != nil {
		return nil, err
	}
	rep.CompleteSeconds = time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "gcbench: %d jobs dead after %.1fs\n", n, rep.CompleteSeconds)
	rep.Complete = readMemory()
	if rep.SnapshotBytesComplete, err = snapshotSize(s); err != nil {
		return nil, err
	}

	start = time.Now()
	if err := rpc(structs.SystemGarbageCollectRPC, &structs.SystemGCRequest{}, &structs.GenericResponse{}); err != nil {
		return nil, fmt.Errorf("system gc: %w", err)
	}
	rep.GCSeconds = time.Since(start).Seconds()
	rep.Left = left(s)
	rep.AfterGC = readMemory()
	if rep.SnapshotBytesAfterGC, err = snapshotSize(s); err != nil {
		return nil, err
	}
	if heapProfile != "" {
		if err := writeHeapProfile(heapProfile); err != nil {
			return nil, err
		}
	}
	rep.RSSAfterGCOverIdle = float64(int(rep.AfterGC.RSSMB/rep.Idle.RSSMB*100)) / 100
	return rep, nil
}

// registerJobs registers n one-task batch jobs from parallel goroutines.
func registerJobs(rpc rpcFunc, n, parallel int) error {
	var next atomic.Int64
	errs := make(chan error, parallel)
	var wg sync.WaitGroup
	for g := 0; g < parallel; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				req := &structs.JobRegisterRequest{Job: batchJob(fmt.Sprintf("gcbench-%06d", i))}
				if err := rpc(structs.JobRegisterRPC, req, &structs.JobRegisterResponse{}); err != nil {
					errs <- fmt.Errorf("registering job %d: %w", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func batchJob(id string) *structs.Job {
	return &structs.Job{ID: id, Type: structs.JobTypeBatch, Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{Name: "g", Count: 1, Tasks: []*structs.Task{{
			Name: "t", Driver: "raw_exec", Config: map[string]any{"command": "/bin/true"},
			Resources: &structs.Resources{CPU: 1, MemoryMB: structs.MinMemoryMB},
		}}}}}
}

// waitDead waits until the nodes reported n allocations complete and every
// job is dead with its evaluations terminal.
func waitDead(s *server.Server, n int, nodes []*simNode, nodeErr <-chan error) error {
	lastLog := time.Now()
	for {
		select {
		case err := <-nodeErr:
			if err != nil {
				return err
			}
		case <-time.After(time.Second):
		}
		done := 0
		for _, node := range nodes {
			done += int(node.done.Load())
		}
		if time.Since(lastLog) > 10*time.Second {
			lastLog = time.Now()
			fmt.Fprintf(os.Stderr, "gcbench: %d allocations reported complete\n", done)
		}
		if done < n {
			continue
		}
		snap := s.State().Snapshot()
		jobs, err := snap.Jobs(nil, "*")
		if err != nil {
			return err
		}
		evals, err := snap.Evals(nil)
		if err != nil {
			return err
		}
		dead := 0
		for _, j := range jobs {
			if j.Status == structs.JobStatusDead {
				dead++
			}
		}
		pending := 0
		for _, e := range evals {
			if !e.TerminalStatus() {
				pending++
			}
		}
		if dead == n && pending == 0 {
			return nil
		}
	}
}

func left(s *server.Server) map[string]int {
	snap := s.State().Snapshot()
	jobs, _ := snap.Jobs(nil, "*")
	evals, _ := snap.Evals(nil)
	allocs, _ := snap.Allocs(nil)
	return map[string]int{"jobs": len(jobs), "evals": len(evals), "allocs": len(allocs)}
}

// snapshotSize takes a raft snapshot (the operator snapshot archive).
func snapshotSize(s *server.Server) (int, error) {
	archive, _, err := s.SaveSnapshot()
	if err != nil {
		return 0, fmt.Errorf("saving a snapshot: %w", err)
	}
	return len(archive), nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.WriteHeapProfile(f)
}
