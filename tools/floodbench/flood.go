package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// registerJobs registers n service jobs whose datacenter does not exist
// (nothing is placed), par at a time.
func registerJobs(addr string, n, par int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, par)
	for range par {
		wg.Go(func() {
			for i := int(next.Add(1)); i <= n; i = int(next.Add(1)) {
				if err := registerJob(addr, fmt.Sprintf("flood-%05d", i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func registerJob(addr, id string) error {
	job := map[string]any{"Job": map[string]any{
		"ID": id, "Name": id, "Type": "service", "Datacenters": []string{"floodbench-nowhere"},
		"TaskGroups": []any{map[string]any{"Name": "g", "Count": 1, "Tasks": []any{map[string]any{
			"Name": "t", "Driver": "mock_driver", "Config": map[string]any{"run_for": "1s"},
			"Resources": map[string]any{"CPU": 10, "MemoryMB": 10},
		}}}},
	}}
	body, _ := json.Marshal(job)
	req, _ := http.NewRequest(http.MethodPut, "http://"+addr+"/v1/jobs", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("registering %s: %w", id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("registering %s: %s: %s", id, resp.Status, b)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return nil
}

// flood is a set of open blocking queries.
type flood struct {
	mu      sync.Mutex
	conns   []net.Conn
	n       int
	answers atomic.Int64 // queries that got an answer or error before close
	closing atomic.Bool
}

// openWaiters opens n blocking GET /v1/jobs?index=<current>&wait=5m, each on
// its own connection, from 127.0.0.2 .. 127.0.0.<sources+1> in turn.
func openWaiters(addr string, n, sources int) (*flood, error) {
	index, err := settledIndex(addr)
	if err != nil {
		return nil, err
	}
	f := &flood{}
	req := fmt.Sprintf("GET /v1/jobs?index=%d&wait=5m HTTP/1.1\r\nHost: %s\r\n\r\n", index, addr)
	for i := range n {
		src := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%max(sources, 1)))}
		d := net.Dialer{LocalAddr: src, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			f.answers.Add(1)
			continue
		}
		if _, err := io.WriteString(c, req); err != nil {
			f.answers.Add(1)
			c.Close()
			continue
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.n++
		f.mu.Unlock()
		go f.await(c)
	}
	return f, nil
}

// await counts an answer (or error) that arrives before close.
func (f *flood) await(c net.Conn) {
	_, err := bufio.NewReader(c).ReadByte()
	if !f.closing.Load() || err == nil {
		f.answers.Add(1)
	}
}

func (f *flood) opened() int  { f.mu.Lock(); defer f.mu.Unlock(); return f.n }
func (f *flood) early() int64 { return f.answers.Load() }

func (f *flood) close() {
	f.closing.Store(true)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
}

// settledIndex waits until /v1/jobs's index has not moved for 2 s (the
// scheduler has finished with the registered jobs; at most a minute) and
// returns it, so the queries block instead of answering at once.
func settledIndex(addr string) (uint64, error) {
	last, err := jobsIndex(addr)
	for still, deadline := time.Now(), time.Now().Add(time.Minute); err == nil && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		var cur uint64
		if cur, err = jobsIndex(addr); cur != last {
			last, still = cur, time.Now()
		} else if time.Since(still) >= 2*time.Second {
			break
		}
	}
	return last, err
}

// jobsIndex returns /v1/jobs's X-Nomad-Index.
func jobsIndex(addr string) (uint64, error) {
	resp, err := http.Get("http://" + addr + "/v1/jobs?prefix=none")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return strconv.ParseUint(resp.Header.Get("X-Nomad-Index"), 10, 64)
}

// figures is one sample of the agent.
type figures struct {
	rssKiB     int64
	goroutines int64
	heapMiB    float64
	leader     time.Duration // time to answer GET /v1/status/leader
}

func (f figures) String() string {
	return fmt.Sprintf("RSS %d MiB, %d goroutines, heap %.0f MiB, /v1/status/leader in %v",
		f.rssKiB/1024, f.goroutines, f.heapMiB, f.leader.Round(time.Microsecond))
}

// sample reads the agent's RSS, goroutines and heap, and times a leader
// query (a fresh connection from 127.0.0.1).
func sample(addr string, pid int) figures {
	var out figures
	out.rssKiB = rssKiB(pid)
	start := time.Now()
	if resp, err := http.Get("http://" + addr + "/v1/status/leader"); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		out.leader = time.Since(start)
	} else {
		out.leader = -1
	}
	var m struct {
		Gauges []struct {
			Name  string
			Value float64
		}
	}
	if resp, err := http.Get("http://" + addr + "/v1/metrics"); err == nil {
		_ = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
	}
	for _, g := range m.Gauges {
		switch g.Name {
		case "nomad.runtime.num_goroutines":
			out.goroutines = int64(g.Value)
		case "nomad.runtime.alloc_bytes":
			out.heapMiB = g.Value / (1 << 20)
		}
	}
	return out
}

// rssKiB reads VmRSS from /proc/<pid>/status (0 when unknown).
func rssKiB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			v, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return v
		}
	}
	return 0
}
