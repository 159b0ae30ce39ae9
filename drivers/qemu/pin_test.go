package qemu

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/qemu/qmp"
)

// TestReservedCoresPinVCPUs boots a 2-vCPU guest on reserved cores 0,1
// bound to NUMA node 0: each vCPU thread may run only on its own core,
// every other qemu thread on the reserved ones, and the guest RAM is bound.
func TestReservedCoresPinVCPUs(t *testing.T) {
	d, cfg := guest(t, true)
	cfg.Resources.Cores = []uint16{0, 1}
	cfg.Resources.NUMANodes = []uint16{0}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.DestroyTask(cfg.ID, true) }()
	tk, err := d.tasks.Get(cfg.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := qmp.Dial(ctx, tk.state.QMPSocket)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := conn.Execute(ctx, "query-cpus-fast", nil)
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	var cpus []vcpuThread
	if err := json.Unmarshal(raw, &cpus); err != nil || len(cpus) != 2 {
		t.Fatalf("query-cpus-fast = %s (%v), want 2 vCPUs", raw, err)
	}
	vcpu := map[int]bool{}
	for _, c := range cpus {
		vcpu[c.ThreadID] = true
		if got := allowedList(t, tk.state.Pid, c.ThreadID); got != fmt.Sprint(c.CPUIndex) {
			t.Errorf("vCPU %d thread %d Cpus_allowed_list %q, want %d", c.CPUIndex, c.ThreadID, got, c.CPUIndex)
		}
	}
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", tk.state.Pid))
	for _, e := range ents {
		var tid int
		fmt.Sscan(e.Name(), &tid)
		if got := allowedList(t, tk.state.Pid, tid); !vcpu[tid] && got != "0-1" {
			t.Errorf("qemu thread %d Cpus_allowed_list %q, want 0-1", tid, got)
		}
	}
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/numa_maps", tk.state.Pid))
	if err != nil || !strings.Contains(string(maps), "bind:0") {
		t.Errorf("no guest memory bound to node 0 in numa_maps (%v)", err)
	}
}

func allowedList(t *testing.T, pid, tid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/status", pid, tid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
