package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

// Flood sizes and bounds (website/api.md, "Connection limits").
const (
	floodIdle     = 20000 // idle connections, held by floodbench helpers in two halves
	floodSources  = 125   // per half: 80 connections per address, under http_max_conns_per_client
	floodOneAddr  = 1000  // more from a single address: all but 100 refused
	floodBlocking = 2000  // blocking GET /v1/jobs, 50 per address
	floodJobs     = 500
	// floodMaxRSS bounds the agent's RSS while flooded. Measured: ~200-300
	// MiB (the HTTP budget caps what idle connections may hold).
	floodMaxRSS = 1 << 30
)

// A real agent flooded with 20,000 idle connections (half silent, half
// keep-alive after one request) from 250 127.0.x.y addresses, 1,000 more
// from one address, and 2,000 blocking queries on /v1/jobs still answers
// GET /v1/status/leader (HTTP) and Status.Leader (RPC) within a second,
// stays under floodMaxRSS, and answers every blocking query once a job is
// registered.
func TestFloodIdleConnectionsAndBlockingQueries(t *testing.T) {
	dir := agentsDir(t)
	a, err := startAgent(filepath.Join(dir, "flood"), true, "", "log_level = \"WARN\"")
	if err != nil {
		t.Fatal(err)
	}
	defer a.stop()
	if err := a.waitReady(0, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	// The agent inherited this process's open-file limit (and so its HTTP
	// budget, half of it). This process holds the blocking queries;
	// tools/floodbench -hold-idle helpers hold the idle flood.
	need := uint64(floodBlocking + 1000)
	if got := raiseOwnNoFile(need); got < need {
		t.Fatalf("this test holds %d connections: RLIMIT_NOFILE is %d and could not be raised (run as root or raise the hard limit)", need, got)
	}
	host := strings.TrimPrefix(a.addr, "http://")
	hc := &http.Client{Timeout: 10 * time.Second}
	for i := range floodJobs {
		if code, err := putJob(hc, a.addr, fmt.Sprintf("flood-%03d", i), "1"); err != nil || code != 200 {
			t.Fatalf("register: %d %v", code, err)
		}
	}
	index := settledJobsIndex(t, a.addr)
	blocked := openBlocking(t, host, index)
	defer blocked.close()
	exe := buildFloodbench(t, dir)
	for _, h := range []struct{ n, sources, net int }{
		{floodIdle / 2, floodSources, 0}, {floodIdle / 2, floodSources, 3}, {floodOneAddr, 1, 4},
	} {
		defer holdIdleInHelper(t, exe, host, h.n, h.sources, h.net)()
	}

	for i := range 5 {
		checkLeaderFast(t, a.addr, net.IPv4(127, 0, 2, byte(i+1)))
	}
	checkRPCLeaderFast(t, a.rpcAddr)
	rss := agentRSS(t, a.cmd.Process.Pid)
	t.Logf("agent RSS while flooded: %d MiB; blocking queries answered early: %d", rss>>20, blocked.answered.Load())
	if rss > floodMaxRSS {
		t.Fatalf("agent RSS %d MiB over the %d MiB bound", rss>>20, floodMaxRSS>>20)
	}
	// The watch fires: every blocking query answers.
	if code, err := putJob(hc, a.addr, "flood-wake", "1"); err != nil || code != 200 {
		t.Fatalf("register: %d %v", code, err)
	}
	eventually(t, 45*time.Second, "every blocking query answered", func() (bool, string) {
		n := blocked.answered.Load()
		return n == int64(len(blocked.conns)), fmt.Sprintf("%d of %d answered", n, len(blocked.conns))
	})
	if a.exited() {
		t.Fatalf("agent exited:\n%s", a.logTail())
	}
}

// raiseOwnNoFile raises this process's RLIMIT_NOFILE to at least need
// when it can (the hard limit too, as root) and returns the soft limit.
func raiseOwnNoFile(need uint64) uint64 {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return 0
	}
	want := l
	want.Cur = max(l.Max, need)
	want.Max = max(l.Max, need)
	if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) != nil {
		want.Cur, want.Max = l.Max, l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want)
	}
	_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l)
	return l.Cur
}

// settledJobsIndex waits until /v1/jobs's index stays put for a second and
// returns it (the scheduler is done with the registered jobs).
func settledJobsIndex(t *testing.T, addr string) uint64 {
	t.Helper()
	var last uint64
	var since time.Time
	eventually(t, 60*time.Second, "a settled jobs index", func() (bool, string) {
		resp, err := http.Get(addr + "/v1/jobs?prefix=none")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		idx, _ := strconv.ParseUint(resp.Header.Get("X-Nomad-Index"), 10, 64)
		if idx != last {
			last, since = idx, time.Now()
		}
		return time.Since(since) >= time.Second, fmt.Sprintf("index %d", idx)
	})
	return last
}

// blockingSet is a set of open blocking queries.
type blockingSet struct {
	conns    []net.Conn
	answered atomic.Int64 // queries that got a 200
}

// openBlocking opens floodBlocking GET /v1/jobs?index=index&wait=2m from
// 127.0.1.1-40 and counts their 200 answers.
func openBlocking(t *testing.T, host string, index uint64) *blockingSet {
	t.Helper()
	b := &blockingSet{}
	req := fmt.Sprintf("GET /v1/jobs?index=%d&wait=2m HTTP/1.1\r\nHost: %s\r\n\r\n", index, host)
	for i := range floodBlocking {
		c, err := dialFrom(host, net.IPv4(127, 0, 1, byte(1+i%40)))
		if err != nil {
			t.Fatalf("blocking query %d: %v", i, err)
		}
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatalf("blocking query %d: %v", i, err)
		}
		b.conns = append(b.conns, c)
		go func() {
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil && resp.StatusCode == http.StatusOK {
				b.answered.Add(1)
			}
		}()
	}
	return b
}

func (b *blockingSet) close() { closeAll(b.conns) }

// buildFloodbench builds tools/floodbench into dir and returns its path.
func buildFloodbench(t *testing.T, dir string) string {
	t.Helper()
	exe := filepath.Join(dir, "floodbench")
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", exe, "./tools/floodbench")
	build.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building floodbench: %v\n%s", err, out)
	}
	return exe
}

// holdIdleInHelper has floodbench (exe) open n idle connections to host
// from sources 127.0.<net>.x addresses (even ones silent, odd ones after
// one keep-alive request) and hold them; the returned func ends it.
// Connections the agent refuses or evicts are fine; dial errors are not
// (the agent must keep accepting).
func holdIdleInHelper(t *testing.T, exe, host string, n, sources, net int) func() {
	t.Helper()
	cmd := exec.Command(exe, "-addr", host, "-hold-idle", strconv.Itoa(n),
		"-sources", strconv.Itoa(sources), "-idle-net", strconv.Itoa(net))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { stdin.Close(); _ = cmd.Wait() }
	line, err := bufio.NewReader(stdout).ReadString('\n')
	var held, failed int
	if _, serr := fmt.Sscanf(line, "held %d failed %d", &held, &failed); err != nil || serr != nil || failed > 0 {
		stop()
		t.Fatalf("floodbench helper: %q %v", line, err)
	}
	t.Logf("helper holds %d idle connections from %d 127.0.%d.x addresses", held, sources, net)
	return stop
}

func dialFrom(host string, src net.IP) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: src}, Timeout: 10 * time.Second}
	return d.Dial("tcp", host)
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		c.Close()
	}
}

// checkLeaderFast GETs /v1/status/leader on a new connection from src and
// fails unless a leader comes back within a second.
func checkLeaderFast(t *testing.T, addr string, src net.IP) {
	t.Helper()
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: src}}).DialContext}}
	start := time.Now()
	resp, err := hc.Get(addr + "/v1/status/leader")
	if err != nil {
		t.Fatalf("GET /v1/status/leader while flooded: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || len(b) < 3 {
		t.Fatalf("GET /v1/status/leader while flooded: %d %s", resp.StatusCode, b)
	}
	t.Logf("GET /v1/status/leader from %v while flooded: %v", src, time.Since(start).Round(time.Microsecond))
}

// checkRPCLeaderFast calls Status.Leader on the RPC port within a second.
func checkRPCLeaderFast(t *testing.T, rpcAddr string) {
	t.Helper()
	c := rpcclient.New([]string{rpcAddr}, nil)
	defer c.Close()
	done := make(chan error, 1)
	var leader string
	go func() { done <- c.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader) }()
	select {
	case err := <-done:
		if err != nil || leader == "" {
			t.Fatalf("Status.Leader over RPC while flooded: %q %v", leader, err)
		}
	case <-time.After(time.Second):
		t.Fatal("Status.Leader over RPC while flooded: no answer within a second")
	}
}

// agentRSS reads VmRSS (bytes) of pid.
func agentRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
