package base

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Log rotation defaults, as Nomad's logs block.
const (
	DefaultLogMaxFiles      = 10
	DefaultLogMaxFileSizeMB = 10
)

// TaskConfig is everything a driver needs to run one task. The client builds
// it; drivers never see the job beyond it.
type TaskConfig struct {
	ID            string // unique per task instance; names cgroups and state
	Name          string
	AllocID       string
	JobName       string
	TaskGroupName string
	Env           map[string]string // complete environment (NOMAD_* set by the caller)
	User          string            // ignored by raw_exec/exec for now
	// Config is the task's driver `config` block decoded generically:
	// numbers are int64 or float64, lists []any, blocks map[string]any.
	Config    map[string]any
	Resources Resources
	AllocDir  string
	TaskDir   string // working directory of the task
	// StdoutPath and StderrPath are the base log paths
	// (<allocdir>/alloc/logs/<task>.stdout); files are written as
	// <path>.0, <path>.1, ... Empty discards the stream.
	StdoutPath string
	StderrPath string
	// LogMaxFiles and LogMaxFileSizeMB bound the rotated files; 0 means the
	// defaults (10 files of 10 MiB).
	LogMaxFiles      int
	LogMaxFileSizeMB int

	Mounts []MountConfig // host volumes (mounts.go)
	// Network is the group's network namespace (bridge, none and CNI
	// modes; network.go); nil: the host's network.
	Network *NetworkIsolation
}

// Resources are the task's allocated resources.
type Resources struct {
	CPUShares   int64 // MHz, used as cgroup cpu.shares
	MemoryMB    int64
	MemoryMaxMB int64 // 0: same as MemoryMB
	// Cores are the CPU core IDs reserved for the task (resources.cores):
	// exec sets cpuset.cpus, docker CpusetCpus, qemu pins its vCPU threads.
	// Empty: the task shares the node's unreserved cores.
	Cores []uint16
	// NUMANodes are the memory nodes of Cores (cpuset.mems, CpusetMems);
	// empty: no memory binding.
	NUMANodes []uint16
}

// Equal reports whether r and o are the same limits.
func (r Resources) Equal(o Resources) bool {
	return r.CPUShares == o.CPUShares && r.MemoryMB == o.MemoryMB && r.MemoryMaxMB == o.MemoryMaxMB &&
		slices.Equal(r.Cores, o.Cores) && slices.Equal(r.NUMANodes, o.NUMANodes)
}

// CoreList is Cores as a cpuset list ("0,2,3"), "" when none.
func (r Resources) CoreList() string { return IDList(r.Cores) }

// IDList formats IDs as a comma-separated cpuset list.
func IDList(ids []uint16) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, ",")
}

// TaskState is the coarse state of a task in a driver.
type TaskState string

// Task states.
const (
	TaskStateUnknown TaskState = "unknown"
	TaskStateRunning TaskState = "running"
	TaskStateExited  TaskState = "exited"
)

// TaskHandleVersion is the current TaskHandle.Version.
const TaskHandleVersion = 1

// TaskHandle is what the client persists to recover a task after a restart.
type TaskHandle struct {
	Version int
	Config  *TaskConfig
	State   TaskState
	// DriverState is opaque driver data (for raw_exec/exec: JSON with pid,
	// process start time, log FIFOs, cgroup paths).
	DriverState []byte
}

// ExitResult is how a task ended.
type ExitResult struct {
	ExitCode  int
	Signal    int // signal that killed the task, 0 if none
	OOMKilled bool
	// Err is set when the driver could not observe the exit normally:
	// ErrPluginShutdown (plugin died; the task may still run) or
	// ErrExitCodeUnknown (a recovered task exited; its status is lost).
	Err error
}

// Successful reports a clean zero exit.
func (r *ExitResult) Successful() bool {
	return r != nil && r.Err == nil && r.ExitCode == 0 && r.Signal == 0 && !r.OOMKilled
}

// TaskStatus is a driver's view of one task.
type TaskStatus struct {
	ID               string
	Name             string
	State            TaskState
	StartedAt        time.Time
	CompletedAt      time.Time   // zero while running
	ExitResult       *ExitResult // nil while running
	DriverAttributes map[string]string
}

// TaskResourceUsage is one sample of a task's resource use (the whole
// process group for raw_exec/exec).
type TaskResourceUsage struct {
	Timestamp time.Time
	CPU       CPUUsage
	Memory    MemoryUsage
	Pids      int // processes counted
}

// CPUUsage is CPU time; percentages are since the previous sample, 100 =
// one core fully busy.
type CPUUsage struct {
	Percent       float64
	UserPercent   float64
	SystemPercent float64
	UserTime      time.Duration // cumulative
	SystemTime    time.Duration // cumulative
}

// MemoryUsage is memory in bytes.
type MemoryUsage struct {
	RSS  uint64
	Swap uint64
}

// LogLimits returns how many rotated files to keep and how large each may
// grow, with the defaults for zero values.
func (c *TaskConfig) LogLimits() (files int, maxBytes int64) {
	files, size := c.LogMaxFiles, c.LogMaxFileSizeMB
	if files <= 0 {
		files = DefaultLogMaxFiles
	}
	if size <= 0 {
		size = DefaultLogMaxFileSizeMB
	}
	return files, int64(size) << 20
}
