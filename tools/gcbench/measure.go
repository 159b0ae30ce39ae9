package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Memory is one reading of the server. The RSS is the kernel's (VmRSS,
// with RssAnon, the heap and stacks, and RssFile, mapped files: raft's
// bbolt log store and the binary, apart). The heap figures are the
// server's own nomad.runtime gauges (runtime.MemStats Alloc and Sys,
// sampled every telemetry collection_interval); no GC is forced for them.
type Memory struct {
	HeapAllocMB float64 // nomad.runtime.alloc_bytes: live and not yet collected heap objects
	GoSysMB     float64 // nomad.runtime.sys_bytes: all the Go runtime got from the OS
	RSSMB       float64 // VmRSS
	RSSAnonMB   float64 // RssAnon
	RSSFileMB   float64 // RssFile
}

// procMemory reads VmRSS, RssAnon and RssFile of the process pid.
func procMemory(pid int) (Memory, error) {
	var m Memory
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, fmt.Errorf("reading the server's memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "VmRSS:":
			m.RSSMB = mb(kb << 10)
		case "RssAnon:":
			m.RSSAnonMB = mb(kb << 10)
		case "RssFile:":
			m.RSSFileMB = mb(kb << 10)
		}
	}
	return m, sc.Err()
}

func mb(b uint64) float64 { return float64(b*10/(1<<20)) / 10 }
