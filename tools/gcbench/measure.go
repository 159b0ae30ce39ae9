package main

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// Memory is one reading, taken after runtime.GC and debug.FreeOSMemory.
type Memory struct {
	HeapInuseMB float64 // runtime.MemStats.HeapInuse
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
