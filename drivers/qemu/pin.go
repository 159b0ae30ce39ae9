package qemu

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/nomadish/nomadish/drivers/qemu/qmp"
)

// vcpuThread is one entry of QMP query-cpus-fast.
type vcpuThread struct {
	CPUIndex int `json:"cpu-index"`
	ThreadID int `json:"thread-id"`
}

// pinVCPUs confines the VM to its reserved cores (cfg.Resources.Cores):
// every qemu thread (emulator, I/O) may run on the reserved cores only, and
// the thread of vCPU i (from QMP query-cpus-fast) on Cores[i mod n] alone.
// It returns vCPU index -> core. Nothing to do without reserved cores.
// Called once qemu's QMP socket is up (StartTask), from the driver's call
// goroutine; a failure leaves the VM running unpinned and is reported.
func (t *task) pinVCPUs(ctx context.Context) (map[int]uint16, error) {
	cores := t.cfg.Resources.Cores
	if len(cores) == 0 {
		return nil, nil
	}
	if err := pinThreads(t.state.Pid, cores); err != nil {
		return nil, err
	}
	conn, err := qmp.Dial(ctx, t.state.QMPSocket)
	if err != nil {
		return nil, fmt.Errorf("pinning vCPUs: %w", err)
	}
	defer conn.Close()
	raw, err := conn.Execute(ctx, "query-cpus-fast", nil)
	if err != nil {
		return nil, fmt.Errorf("pinning vCPUs: %w", err)
	}
	var cpus []vcpuThread
	if err := json.Unmarshal(raw, &cpus); err != nil {
		return nil, fmt.Errorf("pinning vCPUs: decoding query-cpus-fast: %w", err)
	}
	pins := make(map[int]uint16, len(cpus))
	for _, c := range cpus {
		core := cores[c.CPUIndex%len(cores)]
		if err := setAffinity(c.ThreadID, []uint16{core}); err != nil {
			return nil, fmt.Errorf("pinning vCPU %d (thread %d) to core %d: %w", c.CPUIndex, c.ThreadID, core, err)
		}
		pins[c.CPUIndex] = core
	}
	return pins, nil
}

// pinThreads sets the affinity of every thread of pid to cores.
func pinThreads(pid int, cores []uint16) error {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return fmt.Errorf("listing qemu threads: %w", err)
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if err := setAffinity(tid, cores); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pinning qemu thread %d: %w", tid, err)
		}
	}
	return nil
}

func setAffinity(tid int, cores []uint16) error {
	var set unix.CPUSet
	for _, c := range cores {
		set.Set(int(c))
	}
	return unix.SchedSetaffinity(tid, &set)
}
