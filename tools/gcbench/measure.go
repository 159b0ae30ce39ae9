package main

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
)

// Memory is one reading, taken after runtime.GC and debug.FreeOSMemory.
type Memory struct {
	HeapLiveMB  float64 // runtime/metrics /gc/heap/live:bytes: what the last GC kept
	HeapInuseMB float64 // runtime.MemStats.HeapInuse: spans holding live objects
	RSSMB       float64 // /proc/self/status VmRSS
	RSSAnonMB   float64 // RssAnon: the heap and stacks
	RSSFileMB   float64 // RssFile: mapped files (raft's bbolt log store)
}

func readMemory() Memory {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := Memory{HeapInuseMB: mb(ms.HeapInuse)}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 {
		m.HeapLiveMB = mb(live[0].Value.Uint64())
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return m
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
	return m
}

func mb(b uint64) float64 { return float64(b*10/(1<<20)) / 10 }
