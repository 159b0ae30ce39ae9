package cli

import (
	"fmt"
	"io"

	"github.com/nomadish/nomadish/structs"
)

// allocStats is GET /v1/client/allocation/:id/stats.
func (c *apiClient) allocStats(id string) (*structs.AllocResourceUsage, error) {
	var out structs.AllocResourceUsage
	_, err := c.get("/v1/client/allocation/"+esc(id)+"/stats", nil, &out)
	return &out, err
}

// fetchAllocStats returns the allocation's usage for `alloc status
// -stats`, or nil after printing why it is not available (the allocation
// is not running, or its client cannot be reached), as Nomad does.
func fetchAllocStats(m *Meta, c *apiClient, a *structs.Allocation) *structs.AllocResourceUsage {
	if a.ClientStatus != structs.AllocClientStatusRunning {
		return nil
	}
	st, err := c.allocStats(a.ID)
	if err != nil {
		fmt.Fprintf(m.Out, "\nCouldn't retrieve stats: %v\n", err)
		return nil
	}
	return st
}

// taskUsage returns task's usage from st, or nil.
func taskUsage(st *structs.AllocResourceUsage, task string) *structs.ResourceUsage {
	if st == nil || st.Tasks[task] == nil {
		return nil
	}
	return st.Tasks[task].ResourceUsage
}

// resourceCells formats the CPU and Memory cells of a task's resources:
// "100 MHz" / "300 MiB" alone, or with usage "12/100 MHz" (MHz used) and
// "4.0 MiB/300 MiB" (RSS), as Nomad's alloc status.
func resourceCells(r *structs.AllocatedTaskResources, u *structs.ResourceUsage) (cpu, mem string) {
	cpu = fmt.Sprintf("%d MHz", r.Cpu.CpuShares)
	mem = fmt.Sprintf("%d MiB", r.Memory.MemoryMB)
	if u == nil {
		return cpu, mem
	}
	if u.CpuStats != nil {
		cpu = fmt.Sprintf("%.0f/%s", u.CpuStats.TotalTicks, cpu)
	}
	if u.MemoryStats != nil {
		mem = humanBytes(u.MemoryStats.RSS) + "/" + mem
	}
	return cpu, mem
}

// printUsageDetail prints the Memory Stats and CPU Stats tables of
// `alloc status -stats` for one task.
func printUsageDetail(w io.Writer, u *structs.ResourceUsage) {
	if u == nil {
		return
	}
	if ms := u.MemoryStats; ms != nil {
		fmt.Fprintln(w, "\nMemory Stats:")
		table(w, [][]string{{"RSS", "Swap"}, {humanBytes(ms.RSS), humanBytes(ms.Swap)}})
	}
	if cs := u.CpuStats; cs != nil {
		fmt.Fprintln(w, "\nCPU Stats:")
		table(w, [][]string{{"Percent", "MHz", "System Mode", "User Mode"}, {
			fmt.Sprintf("%.2f%%", cs.Percent), fmt.Sprintf("%.0f", cs.TotalTicks),
			fmt.Sprintf("%.2f%%", cs.SystemMode), fmt.Sprintf("%.2f%%", cs.UserMode)}})
	}
}

// humanBytes formats b in IEC units with one decimal ("4.0 MiB", "512 B").
func humanBytes(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}
