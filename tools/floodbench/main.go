// Command floodbench measures what concurrent blocking queries cost an
// agent: it starts a dev agent (or targets a running one), registers jobs
// that cannot be placed (their datacenter does not exist, so nothing runs),
// opens many concurrent blocking GETs on /v1/jobs?index=N spread over
// several 127.0.0.x source addresses, waits, and reports the agent's RSS
// (from /proc/<pid>/status), its goroutines and heap (from /v1/metrics), and
// how long /v1/status/leader takes to answer while the queries wait.
//
//	go run ./tools/floodbench -bin bin/nomadish -jobs 5000 -waiters 2000 -hold 15s
//
// With -hold-idle N -addr host:port it only opens N idle connections and
// holds them until its stdin closes (the e2e flood test's helper).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/nomadish", "nomadish binary to start as `agent -dev` (unused with -addr)")
	addr := flag.String("addr", "", "target a running agent's HTTP address (host:port) instead of starting one")
	pid := flag.Int("pid", 0, "the targeted agent's pid, for its RSS (with -addr)")
	jobs := flag.Int("jobs", 5000, "jobs to register")
	waiters := flag.Int("waiters", 2000, "concurrent blocking queries on /v1/jobs")
	sources := flag.Int("sources", 40, "127.0.0.x source addresses the queries are spread over")
	hold := flag.Duration("hold", 15*time.Second, "how long the queries wait before the figures are taken")
	extra := flag.String("config", "", "extra agent config (HCL) appended to the started agent's")
	idle := flag.Int("hold-idle", 0, "only open this many idle connections to -addr and hold them until stdin closes")
	idleNet := flag.Int("idle-net", 0, "with -hold-idle: the third byte of the 127.0.x.y source addresses")
	flag.Parse()
	raiseNoFile()
	if *idle > 0 {
		if err := holdIdle(*addr, *idle, *sources, *idleNet); err != nil {
			fmt.Fprintln(os.Stderr, "floodbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*bin, *addr, *pid, *jobs, *waiters, *sources, *hold, *extra); err != nil {
		fmt.Fprintln(os.Stderr, "floodbench:", err)
		os.Exit(1)
	}
}

func run(bin, addr string, pid, jobs, waiters, sources int, hold time.Duration, extra string) error {
	if addr == "" {
		dir, err := os.MkdirTemp("", "floodbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		abs, err := filepath.Abs(bin)
		if err != nil {
			return err
		}
		ag, err := startAgent(abs, dir, extra)
		if err != nil {
			return err
		}
		defer ag.stop()
		addr, pid = ag.addr, ag.cmd.Process.Pid
	}
	if err := waitLeader(addr, 30*time.Second); err != nil {
		return err
	}
	idle := sample(addr, pid)
	fmt.Printf("idle:            %s\n", idle)
	start := time.Now()
	if err := registerJobs(addr, jobs, 16); err != nil {
		return err
	}
	fmt.Printf("registered %d jobs in %v\n", jobs, time.Since(start).Round(time.Millisecond))
	loaded := sample(addr, pid)
	fmt.Printf("after register:  %s\n", loaded)
	fl, err := openWaiters(addr, waiters, sources)
	if err != nil {
		return err
	}
	defer fl.close()
	fmt.Printf("opened %d blocking queries from %d source addresses; holding %v\n", fl.opened(), sources, hold)
	time.Sleep(hold)
	during := sample(addr, pid)
	fmt.Printf("while waiting:   %s\n", during)
	fmt.Printf("queries answered early (refused or errors): %d of %d\n", fl.early(), waiters)
	fmt.Printf("per waiter:      %.1f goroutines, %.1f KiB RSS\n",
		float64(during.goroutines-loaded.goroutines)/float64(waiters),
		float64(during.rssKiB-loaded.rssKiB)/float64(waiters))
	return wake(addr, pid, fl)
}

// wake registers one more job (every query's watch fires, each builds
// its answer) and reports the peak RSS until all have answered (at most
// 60 s), sampling every 50 ms.
func wake(addr string, pid int, fl *flood) error {
	before := fl.early()
	start := time.Now()
	if err := registerJob(addr, "flood-wake"); err != nil {
		return err
	}
	var peak int64
	for time.Since(start) < time.Minute && fl.early()-before < int64(fl.opened()) {
		peak = max(peak, rssKiB(pid))
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Printf("after one write: %d of %d answered in %v, peak RSS %d MiB, then %s\n",
		fl.early()-before, fl.opened(), time.Since(start).Round(time.Millisecond), peak/1024, sample(addr, pid))
	return nil
}

// raiseNoFile raises this process's open-file soft limit to its hard limit.
func raiseNoFile() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}
