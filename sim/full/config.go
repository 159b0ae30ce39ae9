package full

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Config is one full-mode run.
type Config struct {
	// Binary is the nomadish binary the servers run as (os.Executable for
	// the CLI; tests build one).
	Binary string
	// Servers is 1 or 3; Nodes the simulated clients.
	Servers int
	Nodes   int
	// Allocs in total over Jobs jobs of Type ("batch" or "service").
	Allocs int
	Jobs   int
	Type   string
	// NodeCPU is each node's MHz, one per allocation (0: room for every
	// placement); below Allocs/Nodes, placements block and the run fails,
	// which shows how blocked evaluations behave.
	NodeCPU int64
	// DataDir holds the servers' data dirs and logs ("": a temporary
	// directory, removed after the run).
	DataDir string
	// Conns is how many RPC connections per server the nodes share (0:
	// one per 250 nodes, at least 4: a yamux session carrying thousands
	// of busy streams misses its keepalives under load).
	Conns int
	// RunFor: batch allocations complete this long after they run (0:
	// they keep running until the end).
	RunFor time.Duration
	// Timeout bounds the wait for every allocation to run.
	Timeout time.Duration
	// ProfileSeconds is the CPU profile of the leader taken once the jobs
	// are submitted (0: none).
	ProfileSeconds int
	// CPUProfile, if set, is where to save the CPU profile (pprof).
	CPUProfile string
	// HeapProfile, if set, is where to save the leader's heap profile
	// (pprof format, after a GC) once every allocation runs.
	HeapProfile string
	// Sample is the throughput sampling interval.
	Sample time.Duration
	// ExtraHCL is more agent configuration for every server.
	ExtraHCL string
	// ServerGOGC and ServerMemLimit set the Go runtime's GOGC and
	// GOMEMLIMIT of the server processes only ("": inherited): a server
	// given a memory budget collects garbage as it nears it instead of each
	// time its heap doubles. The simulated clients keep their own.
	ServerGOGC, ServerMemLimit string
	// Progress, if set, gets a line of progress now and then.
	Progress func(format string, args ...any)
}

// DefaultConfig is a small run: one server, 200 nodes, 5,000 batch
// allocations in 5 jobs.
func DefaultConfig() Config {
	return Config{Servers: 1, Nodes: 200, Allocs: 5000, Jobs: 5, Type: "batch",
		Timeout: 30 * time.Minute, ProfileSeconds: 0, Sample: time.Second}
}

// maxJobCount is the server's default job_max_count: a job's allocations.
const maxJobCount = 10000

// Validate names the first bad setting by its flag.
func (c *Config) Validate() error {
	switch {
	case c.Binary == "":
		return errors.New("no nomadish binary to run the servers")
	case c.Servers != 1 && c.Servers != 3:
		return fmt.Errorf("-servers %d: want 1 or 3", c.Servers)
	case c.Nodes < 1:
		return fmt.Errorf("-nodes %d: want at least 1", c.Nodes)
	case c.Allocs < 1:
		return fmt.Errorf("-allocs %d: want at least 1", c.Allocs)
	case c.Jobs < 1 || c.Jobs > c.Allocs:
		return fmt.Errorf("-jobs %d: want 1 to -allocs (%d)", c.Jobs, c.Allocs)
	case (c.Allocs+c.Jobs-1)/c.Jobs > maxJobCount:
		return fmt.Errorf("-jobs %d: %d allocations per job is over the servers' job_max_count %d; use at least %d jobs",
			c.Jobs, (c.Allocs+c.Jobs-1)/c.Jobs, maxJobCount, (c.Allocs+maxJobCount-1)/maxJobCount)
	case c.Type != "batch" && c.Type != "service":
		return fmt.Errorf("-type %q: want batch or service", c.Type)
	case c.NodeCPU < 0:
		return fmt.Errorf("-node-cpu %d: want 0 (unlimited) or more MHz", c.NodeCPU)
	case c.Conns < 0:
		return fmt.Errorf("-conns %d: want 0 (one per 250 nodes) or more", c.Conns)
	case c.Timeout <= 0:
		return fmt.Errorf("-timeout %s: want more than 0", c.Timeout)
	case c.Sample <= 0:
		return fmt.Errorf("sample interval %s: want more than 0", c.Sample)
	case c.ProfileSeconds < 0:
		return fmt.Errorf("-profile %d: want 0 or more seconds", c.ProfileSeconds)
	case c.ServerGOGC != "" && c.ServerGOGC != "off" && !positiveInt(c.ServerGOGC):
		return fmt.Errorf("-server-gogc %q: want a percentage (100 is Go's default) or off", c.ServerGOGC)
	case c.ServerMemLimit != "" && !memLimitRE.MatchString(c.ServerMemLimit):
		return fmt.Errorf("-server-memlimit %q: want bytes with an optional unit, as GOMEMLIMIT (e.g. 14GiB, 512MiB)", c.ServerMemLimit)
	}
	return nil
}

// memLimitRE is GOMEMLIMIT's syntax: a number and B, KiB, MiB, GiB or TiB.
var memLimitRE = regexp.MustCompile(`^[0-9]+(B|KiB|MiB|GiB|TiB)?$`)

func positiveInt(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0
}

// serverEnv is the servers' added environment.
func (c *Config) serverEnv() []string {
	var env []string
	if c.ServerGOGC != "" {
		env = append(env, "GOGC="+c.ServerGOGC)
	}
	if c.ServerMemLimit != "" {
		env = append(env, "GOMEMLIMIT="+c.ServerMemLimit)
	}
	return env
}
