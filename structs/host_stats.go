package structs

// HostStats is a client's host usage, the answer of GET /v1/client/stats
// (the JSON shape of Nomad's HostStats).
type HostStats struct {
	Memory        *HostMemoryStats
	CPU           []*HostCPUStats
	DiskStats     []*HostDiskStats
	AllocDirStats *HostDiskStats
	// Uptime is the host's uptime in seconds.
	Uptime uint64
	// Timestamp is when the sample was taken, in Unix nanoseconds.
	Timestamp int64
	// CPUTicksConsumed is the CPU in use, in MHz: every CPU's busy share
	// times the node's MHz per core (what the cpu dimension counts in).
	CPUTicksConsumed float64
}

// HostMemoryStats is the host's memory in bytes.
type HostMemoryStats struct {
	Total, Available, Used, Free uint64
}

// HostCPUStats is one CPU's use over the sample, in percent of it.
type HostCPUStats struct {
	CPU                       string
	User, System, Idle, Total float64
}

// HostDiskStats is one filesystem's size and use.
type HostDiskStats struct {
	Device, Mountpoint    string
	Size, Used, Available uint64
	UsedPercent           float64
	InodesUsedPercent     float64
}
