package execdriver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/netns"
	"github.com/nomadish/nomadish/drivers/logging"
)

// logSyncTimeout bounds how long an exit waits for the log pumps; it only
// matters if the disk is stuck.
const logSyncTimeout = 10 * time.Second

// recoveredPollInterval is how often a recovered task (not our child, so
// not waitable) is checked for exit.
const recoveredPollInterval = 100 * time.Millisecond

// driverState is TaskHandle.DriverState for raw_exec and exec (JSON).
type driverState struct {
	Pid        int
	StartTicks uint64 // /proc/<pid>/stat starttime: guards against pid reuse
	StartedAt  time.Time
	StdoutFIFO string   `json:",omitempty"`
	StderrFIFO string   `json:",omitempty"`
	Cgroups    []string `json:",omitempty"`
	// CgroupV2 says Cgroups is the one cgroup v2 dir of the task, not
	// one cgroup v1 dir per controller.
	CgroupV2 bool `json:",omitempty"`
}

// task is one running or exited task. cfg, state and pumps are set before
// the task is added to the driver's table (base.Table) and never change.
type task struct {
	cfg      *base.TaskConfig
	state    driverState
	pumps    []*logging.Pump
	exit     *base.Exit    // set after the logs are synced
	stopped  chan struct{} // closed by stopOnce: ends a recovered task's poll loop
	stopOnce sync.Once
}

func newTask(cfg *base.TaskConfig) *task {
	return &task{cfg: cfg, exit: base.NewExit(), stopped: make(chan struct{})}
}

// startTask launches the process of cfg in its own process group with
// stdout/stderr into log FIFOs: plainly (raw_exec) when iso is nil, else
// isolated through the task init (exec; startIsolated).
func startTask(cfg *base.TaskConfig, cmdPath string, args []string, iso *isolation, pidsLimit int64, logger hclog.Logger) (*task, error) {
	t := newTask(cfg)
	var taskEnds []*os.File
	defer func() {
		for _, f := range taskEnds {
			f.Close() // the child holds its own copies
		}
	}()
	stdout, stdoutFIFO, err := t.openLog(cfg.StdoutPath, &taskEnds)
	if err != nil {
		t.closePumps()
		return nil, err
	}
	stderr, stderrFIFO, err := t.openLog(cfg.StderrPath, &taskEnds)
	if err != nil {
		t.closePumps()
		return nil, err
	}
	t.state.StdoutFIFO, t.state.StderrFIFO = stdoutFIFO, stderrFIFO
	if iso != nil {
		err = t.startIsolated(iso, cmdPath, args, stdout, stderr, pidsLimit, logger)
	} else {
		err = t.startPlain(cmdPath, args, stdout, stderr)
	}
	if err != nil {
		t.closePumps()
		return nil, err
	}
	return t, nil
}

// startPlain runs the command directly as the plugin's user (raw_exec).
func (t *task) startPlain(cmdPath string, args []string, stdout, stderr *os.File) error {
	cmd := exec.Command(cmdPath, args...)
	cmd.Dir = t.cfg.TaskDir
	cmd.Env = envList(volumeEnv(t.cfg.Env, t.cfg.Mounts)) // volumes.go
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if stdout != nil { // a nil *os.File in the interface would close fd 1
		cmd.Stdout = stdout
	}
	if stderr != nil {
		cmd.Stderr = stderr
	}
	if err := netns.Start(netnsPath(t.cfg), cmd); err != nil { // network.go
		return fmt.Errorf("starting %s: %w", cmdPath, err)
	}
	t.started(cmd.Process.Pid)
	go t.waitChild(cmd)
	return nil
}

// started records the pid of the task's main process (for exec, the init).
func (t *task) started(pid int) {
	t.state.Pid = pid
	t.state.StartedAt = time.Now()
	if st, err := readProcStat(pid); err == nil {
		t.state.StartTicks = st.StartTicks
	}
}

// openLog sets up one stream: returns the task's end (an *os.File or nil
// for /dev/null) and the FIFO path, and starts the pump into a Rotator.
func (t *task) openLog(path string, ends *[]*os.File) (*os.File, string, error) {
	if path == "" {
		return nil, "", nil
	}
	fifo := logging.FIFOPath(path)
	end, err := logging.OpenTaskEnd(fifo)
	if err != nil {
		return nil, "", err
	}
	*ends = append(*ends, end)
	if err := t.attachLog(path, fifo); err != nil {
		return nil, "", err
	}
	return end, fifo, nil
}

// attachLog starts a pump from fifo into the rotated files of path.
func (t *task) attachLog(path, fifo string) error {
	files, maxBytes := t.cfg.LogLimits()
	p, err := logging.PumpToFiles(fifo, path, files, maxBytes)
	if err != nil {
		return err
	}
	t.pumps = append(t.pumps, p)
	return nil
}

func (t *task) closePumps() {
	for _, p := range t.pumps {
		p.Close()
	}
}

// waitChild reaps our child and records how it ended.
func (t *task) waitChild(cmd *exec.Cmd) {
	res := exitResultOf(cmd, cmd.Wait())
	res.OOMKilled = oomKilled(t.state.Cgroups)
	t.finish(res)
}

// exitResultOf turns a waited-for command into an ExitResult.
func exitResultOf(cmd *exec.Cmd, err error) *base.ExitResult {
	res := &base.ExitResult{}
	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = int(ws.Signal())
			res.ExitCode = 128 + res.Signal
		} else {
			res.ExitCode = ps.ExitCode()
		}
	} else if err != nil {
		res.Err = err
	}
	return res
}

// waitRecovered polls a process that is not our child until it is gone.
// Its exit status cannot be known: the result carries ErrExitCodeUnknown.
func (t *task) waitRecovered() {
	tick := time.NewTicker(recoveredPollInterval)
	defer tick.Stop()
	for alive(t.state.Pid, t.state.StartTicks) {
		select {
		case <-tick.C:
		case <-t.stopped:
			t.finish(&base.ExitResult{Err: base.ErrExitCodeUnknown})
			return
		}
	}
	t.finish(&base.ExitResult{Err: base.ErrExitCodeUnknown, OOMKilled: oomKilled(t.state.Cgroups)})
}

// finish syncs the logs, then publishes the result.
func (t *task) finish(res *base.ExitResult) {
	ctx, cancel := context.WithTimeout(context.Background(), logSyncTimeout)
	defer cancel()
	for _, p := range t.pumps {
		_ = p.Sync(ctx)
	}
	t.exit.Set(res)
}

// stop signals the main process, waits up to timeout, then SIGKILLs the
// process group, and waits for the exit.
func (t *task) stop(timeout time.Duration, sig syscall.Signal) {
	select {
	case <-t.exit.Done():
		return
	default:
	}
	_ = syscall.Kill(t.state.Pid, sig)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-t.exit.Done():
		return
	case <-timer.C:
	}
	t.killGroup()
	<-t.exit.Done()
}

// killGroup SIGKILLs every process of the task's group (and cgroup). If
// the pid now belongs to another process (reused after our task exited),
// that process and its group are left alone: while our group had members
// the kernel could not have reused its id.
func (t *task) killGroup() {
	if st, err := readProcStat(t.state.Pid); err != nil || st.StartTicks == t.state.StartTicks {
		_ = syscall.Kill(-t.state.Pid, syscall.SIGKILL)
		if err == nil {
			_ = syscall.Kill(t.state.Pid, syscall.SIGKILL)
		}
	}
	for _, cg := range t.state.Cgroups {
		for _, pid := range cgroupPids(cg) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// encodeState returns DriverState.
func (t *task) encodeState() []byte {
	b, _ := json.Marshal(&t.state) // plain data: cannot fail
	return b
}

// resolveCommand finds the command: absolute, relative to the task dir
// when it has a slash, else in PATH.
func resolveCommand(command, taskDir string) (string, error) {
	if filepath.IsAbs(command) {
		return command, nil
	}
	if filepath.Base(command) != command {
		return filepath.Join(taskDir, command), nil
	}
	if p := filepath.Join(taskDir, command); taskDir != "" && isExecutable(p) {
		return p, nil
	}
	p, err := exec.LookPath(command)
	if err != nil {
		return "", fmt.Errorf("finding command %q: %w", command, err)
	}
	return p, nil
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}
