package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/server"
	"github.com/nomadish/nomadish/structs"
)

// inProcess is a server run inside the tool (-inprocess), for profiles:
// its memory readings include the tool's own (the simulated nodes).
type inProcess struct {
	s    *server.Server
	pool *rpcclient.Pool
}

func startInProcess(dir string, logger hclog.Logger) (*inProcess, error) {
	s, err := server.NewServer(&server.Config{DataDir: dir, RPCAddr: "127.0.0.1:0", BootstrapExpect: 1,
		NumSchedulers: runtime.NumCPU(), Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.WaitForLeader(ctx); err != nil {
		s.Shutdown()
		return nil, err
	}
	return &inProcess{s: s, pool: rpcclient.NewPool(nil, logger)}, nil
}

func (p *inProcess) RPCAddr() string { return p.s.RPCAddr() }

func (p *inProcess) Close() {
	p.pool.Close()
	p.s.Shutdown()
}

func (p *inProcess) Memory() (Memory, error) {
	m, err := procMemory(os.Getpid())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.HeapAllocMB, m.GoSysMB = mb(ms.Alloc), mb(ms.Sys)
	return m, err
}

func (p *inProcess) SnapshotSize() (int, error) {
	archive, _, err := p.s.SaveSnapshot()
	if err != nil {
		return 0, fmt.Errorf("saving a snapshot: %w", err)
	}
	return len(archive), nil
}

// GC forces a collection.
func (p *inProcess) GC() error {
	return p.pool.RPC(p.s.RPCAddr(), structs.SystemGarbageCollectRPC, &structs.SystemGCRequest{}, &structs.GenericResponse{})
}

// Profile writes this process's heap profile, or a CPU profile of the
// seconds given.
func (p *inProcess) Profile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if strings.HasPrefix(name, "heap") {
		runtime.GC()
		return pprof.WriteHeapProfile(f)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	time.Sleep(20 * time.Second)
	pprof.StopCPUProfile()
	return nil
}

func (p *inProcess) Unfinished() (int, int, error) {
	snap := p.s.State().Snapshot()
	jobs, err := snap.Jobs(nil, "*")
	if err != nil {
		return 0, 0, err
	}
	evals, err := snap.Evals(nil)
	if err != nil {
		return 0, 0, err
	}
	nj, ne := 0, 0
	for _, j := range jobs {
		if j.Status != structs.JobStatusDead {
			nj++
		}
	}
	for _, e := range evals {
		if !e.TerminalStatus() {
			ne++
		}
	}
	return nj, ne, nil
}

func (p *inProcess) Left() (map[string]int, error) {
	snap := p.s.State().Snapshot()
	jobs, _ := snap.Jobs(nil, "*")
	evals, _ := snap.Evals(nil)
	allocs, err := snap.Allocs(nil)
	return map[string]int{"jobs": len(jobs), "evaluations": len(evals), "allocations": len(allocs)}, err
}
