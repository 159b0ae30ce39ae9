package execdriver

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ; 100 on every Linux platform Go supports.
const clockTicks = 100

// procStat is the part of /proc/<pid>/stat the driver uses.
type procStat struct {
	State      byte
	PPid, Pgrp int
	UTime      uint64 // clock ticks
	STime      uint64
	StartTicks uint64 // since boot; with the pid, identifies a process
	RSSPages   uint64
}

// readProcStat parses /proc/<pid>/stat. The command name may hold spaces
// and parentheses, so fields are counted from the last ')'.
func readProcStat(pid int) (*procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return nil, fmt.Errorf("parsing /proc/%d/stat: no command end", pid)
	}
	f := strings.Fields(s[i+2:]) // f[0] is field 3 (state)
	if len(f) < 22 {
		return nil, fmt.Errorf("parsing /proc/%d/stat: %d fields", pid, len(f))
	}
	num := func(field int) uint64 {
		v, _ := strconv.ParseUint(f[field-3], 10, 64)
		return v
	}
	return &procStat{
		State:      f[0][0],
		PPid:       int(num(4)),
		Pgrp:       int(num(5)),
		UTime:      num(14),
		STime:      num(15),
		StartTicks: num(22),
		RSSPages:   num(24),
	}, nil
}

// alive reports whether pid is the same live (non-zombie) process that
// started at startTicks.
func alive(pid int, startTicks uint64) bool {
	st, err := readProcStat(pid)
	if err != nil {
		return false
	}
	return st.State != 'Z' && st.State != 'X' && st.StartTicks == startTicks
}

// groupUsage sums CPU ticks, RSS and swap over the processes of group pgrp.
type groupUsage struct {
	uticks, sticks uint64
	rss, swap      uint64
	pids           int
}

func readGroupUsage(pgrp int) groupUsage {
	var u groupUsage
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return u
	}
	page := uint64(os.Getpagesize())
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readProcStat(pid)
		if err != nil || st.Pgrp != pgrp || st.State == 'Z' {
			continue
		}
		u.pids++
		u.uticks += st.UTime
		u.sticks += st.STime
		u.rss += st.RSSPages * page
		u.swap += readSwap(pid)
	}
	return u
}

// readSwap returns VmSwap from /proc/<pid>/status in bytes.
func readSwap(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSwap:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

func ticksToDuration(t uint64) time.Duration {
	return time.Duration(t) * time.Second / clockTicks
}
