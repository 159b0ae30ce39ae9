package qemu

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/execdriver"
	"github.com/nomadish/nomadish/drivers/internal/netns"
	"github.com/nomadish/nomadish/drivers/logging"
	"github.com/nomadish/nomadish/drivers/qemu/qmp"
)

const (
	// logSyncTimeout bounds how long an exit waits for the log pumps.
	logSyncTimeout = 10 * time.Second
	// recoveredPollInterval is how often a recovered VM (not our child)
	// is checked for exit.
	recoveredPollInterval = 100 * time.Millisecond
	// qmpTimeout bounds one QMP conversation (connect, handshake, command).
	qmpTimeout = 3 * time.Second
	// powerdownAckWait is how long to wait for QEMU's POWERDOWN event after
	// system_powerdown returned.
	powerdownAckWait = time.Second
)

// driverState is TaskHandle.DriverState (JSON): enough to find the VM again.
type driverState struct {
	Pid              int
	StartTicks       uint64 // with Pid identifies the qemu process
	StartedAt        time.Time
	QMPSocket        string
	GracefulShutdown bool
	StdoutFIFO       string `json:",omitempty"`
	StderrFIFO       string `json:",omitempty"`
}

// task is one VM. cfg and state are set before the task is added to
// the driver's table (base.Table) and never change; pumps likewise.
type task struct {
	cfg      *base.TaskConfig
	state    driverState
	pumps    []*logging.Pump
	exit     *base.Exit
	stopped  chan struct{} // closed by stopOnce: ends a recovered task's poll loop
	stopOnce sync.Once

	mu        sync.Mutex // guards shutdown
	shutdown  string     // what the last graceful shutdown did, for InspectTask
	qmpCalled bool       // a QMP conversation was attempted
}

func newTask(cfg *base.TaskConfig) *task {
	return &task{cfg: cfg, exit: base.NewExit(), stopped: make(chan struct{})}
}

// startVM runs qemu with args in its own process group, the serial console
// (qemu's stdout) and qemu's stderr going through FIFOs into the log files.
func startVM(cfg *base.TaskConfig, binary string, args []string, st driverState) (*task, error) {
	cmd := exec.Command(binary, args...)
	cmd.Dir = cfg.TaskDir
	cmd.Env = envList(cfg.Env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t := newTask(cfg)
	t.state = st
	var ends []*os.File
	defer func() {
		for _, f := range ends {
			f.Close() // qemu holds its own copies
		}
	}()
	stdout, err := t.openLog(cfg.StdoutPath, &t.state.StdoutFIFO, &ends)
	if err != nil {
		t.closePumps()
		return nil, err
	}
	stderr, err := t.openLog(cfg.StderrPath, &t.state.StderrFIFO, &ends)
	if err != nil {
		t.closePumps()
		return nil, err
	}
	if stdout != nil { // a nil *os.File in the interface would close fd 1
		cmd.Stdout = stdout
	}
	if stderr != nil {
		cmd.Stderr = stderr
	}
	_ = os.Remove(st.QMPSocket) // stale socket of an earlier run
	netnsPath := ""
	if cfg.Network != nil {
		netnsPath = cfg.Network.Path // the group's namespace: user networking lives there
	}
	if err := netns.Start(netnsPath, cmd); err != nil {
		t.closePumps()
		return nil, fmt.Errorf("starting %s: %w", binary, err)
	}
	t.state.Pid = cmd.Process.Pid
	t.state.StartedAt = time.Now()
	t.state.StartTicks, _ = execdriver.ProcStartTicks(t.state.Pid)
	go t.waitChild(cmd)
	return t, nil
}

// openLog starts the pump of one stream and returns qemu's end of the FIFO
// (nil when the stream is discarded).
func (t *task) openLog(path string, fifo *string, ends *[]*os.File) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	*fifo = logging.FIFOPath(path)
	end, err := logging.OpenTaskEnd(*fifo)
	if err != nil {
		return nil, err
	}
	*ends = append(*ends, end)
	if err := t.attachLog(path, *fifo); err != nil {
		return nil, err
	}
	return end, nil
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

// release stops the log pumps and removes the FIFOs and the QMP socket of
// an exited VM.
func (t *task) release() {
	t.closePumps()
	for _, f := range []string{t.state.StdoutFIFO, t.state.StderrFIFO, t.state.QMPSocket} {
		if f != "" {
			_ = os.Remove(f)
		}
	}
}

// waitChild reaps qemu and records how it ended.
func (t *task) waitChild(cmd *exec.Cmd) {
	err := cmd.Wait()
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
	t.finish(res)
}

// waitRecovered polls a qemu that is not our child until it is gone; its
// exit status cannot be known.
func (t *task) waitRecovered() {
	tick := time.NewTicker(recoveredPollInterval)
	defer tick.Stop()
	for execdriver.Alive(t.state.Pid, t.state.StartTicks) {
		select {
		case <-tick.C:
		case <-t.stopped:
			t.finish(&base.ExitResult{Err: base.ErrExitCodeUnknown})
			return
		}
	}
	t.finish(&base.ExitResult{Err: base.ErrExitCodeUnknown})
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

// stop asks the VM to end: with graceful_shutdown by QMP system_powerdown
// (the guest's ACPI power button), else (or when QMP fails) with sig to
// qemu, which then quits. After timeout the process group is killed.
// Returns once qemu has exited.
func (t *task) stop(timeout time.Duration, sig syscall.Signal, logger hclog.Logger) {
	select {
	case <-t.exit.Done():
		return
	default:
	}
	sendSig := true
	if t.state.GracefulShutdown {
		err := t.powerdown()
		if err != nil {
			logger.Warn("graceful shutdown over QMP failed; signalling qemu", "task", t.cfg.ID, "error", err)
		}
		sendSig = err != nil
	}
	if sendSig {
		_ = syscall.Kill(t.state.Pid, sig)
	}
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

// powerdown sends system_powerdown over QMP and waits briefly for QEMU's
// POWERDOWN event; the outcome is kept for InspectTask.
func (t *task) powerdown() error {
	t.mu.Lock()
	t.qmpCalled = true
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), qmpTimeout)
	defer cancel()
	outcome, err := sendPowerdown(ctx, t.state.QMPSocket)
	if err != nil {
		outcome = "failed: " + err.Error()
	}
	t.mu.Lock()
	t.shutdown = outcome
	t.mu.Unlock()
	return err
}

// sendPowerdown runs one QMP conversation: system_powerdown, then waits up
// to powerdownAckWait for the POWERDOWN event.
func sendPowerdown(ctx context.Context, socket string) (string, error) {
	c, err := qmp.Dial(ctx, socket)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := c.Execute(ctx, "system_powerdown", nil); err != nil {
		return "", err
	}
	timer := time.NewTimer(powerdownAckWait)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				return "system_powerdown sent; qemu closed QMP", nil
			}
			if ev.Name == "POWERDOWN" {
				return "system_powerdown acknowledged (POWERDOWN event)", nil
			}
		case <-timer.C:
			return "system_powerdown sent; no POWERDOWN event", nil
		}
	}
}

// killGroup SIGKILLs qemu's process group, unless its pid now names
// another process.
func (t *task) killGroup() {
	if ticks, err := execdriver.ProcStartTicks(t.state.Pid); err != nil || ticks == t.state.StartTicks {
		_ = syscall.Kill(-t.state.Pid, syscall.SIGKILL)
		if err == nil {
			_ = syscall.Kill(t.state.Pid, syscall.SIGKILL)
		}
	}
}

// shutdownInfo reports the graceful shutdown outcome.
func (t *task) shutdownInfo() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.shutdown, t.qmpCalled
}

func (t *task) encodeState() []byte {
	b, _ := json.Marshal(&t.state) // plain data: cannot fail
	return b
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}
