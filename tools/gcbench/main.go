// Command gcbench measures what server garbage collection gives back. It
// starts a server agent as a separate process (the nomadish binary, raft on
// disk in a temp dir), registers -jobs one-task batch jobs over its RPC
// port, has -nodes simulated nodes (sim/full's, as `sim cluster` uses: no
// processes; they register, heartbeat, watch their allocations and report
// them running, then complete, over RPC) finish them,
// and prints as JSON the server process's RSS (VmRSS, RssAnon, RssFile from
// /proc/<pid>/status) and Go heap (nomad.runtime gauges of /v1/metrics)
// when idle, after every job completed and after PUT /v1/system/gc, and
// the size of GET /v1/operator/snapshot at each.
//
//	go run ./tools/gcbench -jobs 10000 -nodes 20
//
// -inprocess runs the server inside the tool instead, for -pprof and
// -heapprofile; its memory readings are then the tool's own.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	_ "net/http/pprof"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/sim/full"
	"github.com/nomadish/nomadish/structs"
)

// Report is the program's output.
type Report struct {
	Jobs            int
	Nodes           int
	Server          string  // "process" (the agent binary) or "in-process"
	RegisterSeconds float64 // registering every job
	CompleteSeconds float64 // until every job is dead
	JobsPerSecond   float64 // Jobs / CompleteSeconds
	Progress        []Progress
	GCSeconds       float64 // PUT /v1/system/gc
	Idle            Memory  // the server with its nodes, no jobs
	Complete        Memory  // every job completed
	AfterGC         Memory  // after system gc and -settle
	// Later is after -later more and a second system gc (nothing left to
	// collect: it only returns freed memory), once the telemetry sinks
	// dropped the collected jobs' gauges (the in-memory sink keeps a
	// minute of intervals). Zero without -later.
	Later                 Memory
	SnapshotBytesIdle     int
	SnapshotBytesComplete int
	SnapshotBytesAfterGC  int
	Left                  map[string]int // jobs, evals, allocs left after GC
	RSSAfterGCOverIdle    float64        // AfterGC.RSSMB / Idle.RSSMB
	AnonAfterGCOverIdle   float64        // AfterGC.RSSAnonMB / Idle.RSSAnonMB
	RSSLaterOverIdle      float64        // Later.RSSMB / Idle.RSSMB
	AnonLaterOverIdle     float64        // Later.RSSAnonMB / Idle.RSSAnonMB
}

// Progress is when a multiple of 10,000 allocations (or of a tenth of the
// jobs, below 100,000) had been reported complete.
type Progress struct {
	Done    int
	Seconds float64 // since registration began
}

// target is the server under measurement.
type target interface {
	RPCAddr() string
	Memory() (Memory, error)
	SnapshotSize() (int, error)
	GC() error
	// Unfinished counts jobs not dead and evaluations not terminal.
	Unfinished() (jobs, evals int, err error)
	Left() (map[string]int, error)
	// Profile writes the server's pprof profile name ("heap?gc=1",
	// "profile?seconds=20") to path.
	Profile(name, path string) error
	Close()
}

func main() {
	jobs := flag.Int("jobs", 10000, "batch jobs to register and complete")
	parallel := flag.Int("parallel", 32, "goroutines registering jobs")
	numNodes := flag.Int("nodes", 20, "simulated nodes")
	bin := flag.String("bin", "", "the nomadish binary (default: go build it from the current module into the temp dir)")
	settle := flag.Duration("settle", 5*time.Second, "wait after system gc before the reading")
	later := flag.Duration("later", 70*time.Second, "then wait this long, gc again and take the Later reading (0: none)")
	extra := flag.String("config", "", "more agent HCL for the server (blocks on lines of their own), e.g. a telemetry prefix_filter")
	inProcess := flag.Bool("inprocess", false, "run the server inside this process (for -pprof/-heapprofile)")
	heapProfile := flag.String("heapprofile", "", "write the server's heap profile after the collection (the last reading) to this file, and the one with every job complete to <file>.complete")
	cpuProfile := flag.String("cpuprofile", "", "write a 20 s CPU profile of the server, taken once the jobs are registered, to this file")
	pprofAddr := flag.String("pprof", "", "with -inprocess: serve net/http/pprof on this address")
	flag.Parse()
	if *pprofAddr != "" {
		go func() { _ = http.ListenAndServe(*pprofAddr, nil) }()
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "gcbench", Level: hclog.Warn, Output: os.Stderr})
	dir, err := os.MkdirTemp("", "gcbench-")
	if err != nil {
		fail(err)
	}
	fail := func(err error) { os.RemoveAll(dir); fail(err) }
	defer os.RemoveAll(dir)
	var t target
	if *inProcess {
		t, err = startInProcess(dir, logger)
	} else {
		t, err = startAgent(dir, *bin, *extra)
	}
	if err != nil {
		fail(err)
	}
	rep, err := run(t, logger, *jobs, *parallel, *numNodes, *settle, *later, profiles{heap: *heapProfile, cpu: *cpuProfile})
	t.Close()
	if err != nil {
		fail(err)
	}
	rep.Server = "process"
	if *inProcess {
		rep.Server = "in-process"
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(rep)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gcbench:", err)
	os.Exit(1)
}

// profiles are where to write the server's profiles ("": none).
type profiles struct{ heap, cpu string }

func run(t target, logger hclog.Logger, n, parallel, numNodes int, settle, later time.Duration, prof profiles) (*Report, error) {
	pool := rpcclient.NewPool(nil, logger)
	defer pool.Close()
	rpc := func(method string, args, reply any) error { return pool.RPC(t.RPCAddr(), method, args, reply) }

	// The simulated nodes are sim/full's (the `sim cluster` clients):
	// they report each allocation running, then complete a millisecond on.
	fleet := full.NewFleet([]string{t.RPCAddr()}, numNodes, 1, time.Millisecond, logger)
	if err := fleet.Start(16); err != nil {
		fleet.Stop()
		return nil, err
	}
	defer fleet.Stop()

	rep := &Report{Jobs: n, Nodes: numNodes}
	time.Sleep(3 * time.Second) // let start-up settle before the idle reading
	var err error
	if rep.Idle, err = t.Memory(); err != nil {
		return nil, err
	}
	if rep.SnapshotBytesIdle, err = t.SnapshotSize(); err != nil {
		return nil, err
	}

	start := time.Now()
	if err := registerJobs(rpc, n, parallel); err != nil {
		return nil, err
	}
	rep.RegisterSeconds = round(time.Since(start).Seconds())
	fmt.Fprintf(os.Stderr, "gcbench: %d jobs registered in %.1fs\n", n, rep.RegisterSeconds)
	profErr := make(chan error, 1)
	if prof.cpu != "" {
		go func() { profErr <- t.Profile("profile?seconds=20", prof.cpu) }()
	} else {
		profErr <- nil
	}
	if rep.Progress, err = waitDead(t, n, start, fleet); err != nil {
		return nil, err
	}
	rep.CompleteSeconds = round(time.Since(start).Seconds())
	if err := <-profErr; err != nil {
		return nil, err
	}
	rep.JobsPerSecond = round(float64(n) / rep.CompleteSeconds)
	fmt.Fprintf(os.Stderr, "gcbench: %d jobs dead after %.1fs\n", n, rep.CompleteSeconds)
	if rep.Complete, err = t.Memory(); err != nil {
		return nil, err
	}
	if rep.SnapshotBytesComplete, err = t.SnapshotSize(); err != nil {
		return nil, err
	}
	if prof.heap != "" {
		if err := t.Profile("heap?gc=1", prof.heap+".complete"); err != nil {
			return nil, err
		}
	}

	start = time.Now()
	if err := t.GC(); err != nil {
		return nil, fmt.Errorf("system gc: %w", err)
	}
	rep.GCSeconds = round(time.Since(start).Seconds())
	time.Sleep(settle)
	if rep.AfterGC, err = t.Memory(); err != nil {
		return nil, err
	}
	if rep.SnapshotBytesAfterGC, err = t.SnapshotSize(); err != nil {
		return nil, err
	}
	if rep.Left, err = t.Left(); err != nil {
		return nil, err
	}
	rep.RSSAfterGCOverIdle = round(rep.AfterGC.RSSMB / rep.Idle.RSSMB)
	rep.AnonAfterGCOverIdle = round(rep.AfterGC.RSSAnonMB / rep.Idle.RSSAnonMB)
	if later > 0 {
		time.Sleep(later)
		if err := t.GC(); err != nil {
			return nil, fmt.Errorf("second system gc: %w", err)
		}
		time.Sleep(settle)
		if rep.Later, err = t.Memory(); err != nil {
			return nil, err
		}
		rep.RSSLaterOverIdle = round(rep.Later.RSSMB / rep.Idle.RSSMB)
		rep.AnonLaterOverIdle = round(rep.Later.RSSAnonMB / rep.Idle.RSSAnonMB)
	}
	if prof.heap != "" {
		if err := t.Profile("heap?gc=1", prof.heap); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func round(f float64) float64 { return float64(int64(f*100)) / 100 }

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

// rpcFunc calls the server over its RPC port.
type rpcFunc func(method string, args, reply any) error

// waitDead waits until the nodes reported n allocations complete and every
// job is dead with its evaluations terminal, noting the progress.
func waitDead(t target, n int, start time.Time, fleet *full.Fleet) ([]Progress, error) {
	step := 10000
	if n < 100000 {
		step = max(n/10, 1)
	}
	var progress []Progress
	lastLog := time.Now()
	for {
		time.Sleep(250 * time.Millisecond)
		done := int(fleet.Count.Completed.Load())
		for len(progress) < done/step && len(progress) < n/step {
			progress = append(progress, Progress{Done: (len(progress) + 1) * step, Seconds: round(time.Since(start).Seconds())})
		}
		if time.Since(lastLog) > 10*time.Second {
			lastLog = time.Now()
			fmt.Fprintf(os.Stderr, "gcbench: %d allocations reported complete after %.0fs\n", done, time.Since(start).Seconds())
		}
		if done < n {
			continue
		}
		jobs, evals, err := t.Unfinished()
		if err != nil {
			return nil, err
		}
		if jobs == 0 && evals == 0 {
			return progress, nil
		}
		time.Sleep(time.Second)
	}
}
