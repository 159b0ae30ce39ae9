package execdriver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/nomadish/nomadish/drivers/base"
)

var _ base.ExecStreamer = (*Driver)(nil)

// execDrainGrace bounds how long output is still copied after the command
// exited (a background child may hold its stdout or terminal open).
const execDrainGrace = time.Second

// eofChar is what a terminal's line discipline reads as end of file (^D):
// sent when stdin ends in Tty mode.
const eofChar = 0x04

// ExecTaskStreaming runs opts.Command inside the running task (see
// base.ExecStreamer). The command gets the task's environment, working
// directory, cgroups, user, and — when the task has them — its mount
// namespace (through its root, /proc/<pid>/root) and PID namespace; see
// newExecTarget. It is in a process group (Tty: a session) of its own,
// which is SIGKILLed when ctx ends.
func (d *Driver) ExecTaskStreaming(ctx context.Context, taskID string, opts *base.ExecOptions) (*base.ExitResult, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	if opts == nil || len(opts.Command) == 0 {
		return nil, fmt.Errorf("exec in task %q: no command", taskID)
	}
	select {
	case <-t.exit.Done():
		return nil, fmt.Errorf("exec in task %q: task is not running", taskID)
	default:
	}
	target, err := newExecTarget(t.state.Pid, t.cfg.TaskDir, t.state.Cgroups, t.state.CgroupV2)
	if err != nil {
		return nil, fmt.Errorf("exec in task %q: %w", taskID, err)
	}
	path, err := target.lookPath(opts.Command[0], t.cfg.Env["PATH"])
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: opts.Command, Env: envList(t.cfg.Env), SysProcAttr: &syscall.SysProcAttr{}}
	cmd.Dir = target.attrs(cmd.SysProcAttr)
	d.logger.Debug("exec in task", "task", taskID, "command", opts.Command, "tty", opts.Tty,
		"root", target.root, "pid_ns", target.pidNS)
	if opts.Tty {
		return execTTY(ctx, cmd, target, opts)
	}
	return execPipes(ctx, cmd, target, opts)
}

// execPipes runs cmd with pipes for stdin, stdout and stderr.
func execPipes(ctx context.Context, cmd *exec.Cmd, target *execTarget, opts *base.ExecOptions) (*base.ExitResult, error) {
	cmd.SysProcAttr.Setpgid = true
	stdout, stderr := newGate(opts.Stdout), newGate(opts.Stderr)
	defer stdout.close()
	defer stderr.close()
	if opts.Stdout != nil {
		cmd.Stdout = stdout
	}
	if opts.Stderr != nil {
		cmd.Stderr = stderr
	}
	cmd.WaitDelay = execDrainGrace // a background child holding stdout does not hold us
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := target.start(cmd); err != nil {
		return nil, fmt.Errorf("exec %q: %w", cmd.Args[0], err)
	}
	go func() {
		if opts.Stdin != nil {
			_, _ = io.Copy(stdin, opts.Stdin)
		}
		stdin.Close()
	}()
	stop := killOnCancel(ctx, cmd.Process.Pid)
	defer stop()
	err = cmd.Wait()
	return execResult(cmd, err)
}

// execTTY runs cmd on a new pseudo-terminal, as the leader of a new
// session whose controlling terminal it is.
func execTTY(ctx context.Context, cmd *exec.Cmd, target *execTarget, opts *base.ExecOptions) (*base.ExitResult, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("exec: opening a pty: %w", err)
	}
	defer ptmx.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, true, 0
	err = target.start(cmd)
	tty.Close() // the child has its copies
	if err != nil {
		return nil, fmt.Errorf("exec %q: %w", cmd.Args[0], err)
	}
	stop := killOnCancel(ctx, cmd.Process.Pid)
	defer stop()

	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case sz, ok := <-opts.ResizeCh:
				if !ok {
					return
				}
				_ = pty.Setsize(ptmx, &pty.Winsize{Rows: uint16(sz.Height), Cols: uint16(sz.Width)})
			}
		}
	}()
	go func() {
		if opts.Stdin != nil {
			_, _ = io.Copy(ptmx, opts.Stdin)
		}
		_, _ = ptmx.Write([]byte{eofChar})
	}()
	out := newGate(opts.Stdout)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, ptmx) // ends with EIO once no process holds the terminal
	}()
	werr := cmd.Wait()
	select {
	case <-copied:
	case <-time.After(execDrainGrace):
	}
	out.close()
	return execResult(cmd, werr)
}

// execResult turns the end of a command into its ExitResult.
func execResult(cmd *exec.Cmd, waitErr error) (*base.ExitResult, error) {
	ps := cmd.ProcessState
	if ps == nil {
		return nil, fmt.Errorf("exec %q: %w", cmd.Args[0], waitErr)
	}
	res := &base.ExitResult{ExitCode: ps.ExitCode()}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = int(ws.Signal())
		res.ExitCode = 128 + res.Signal
	}
	return res, nil
}

// killOnCancel SIGKILLs the process group pgid when ctx ends before stop
// is called.
func killOnCancel(ctx context.Context, pgid int) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		case <-done:
		}
	}()
	return func() { close(done) }
}

// errGateClosed is what a write after close gets.
var errGateClosed = errors.New("exec: output closed")

// gate passes writes to w until close, after which they are dropped: a
// copy goroutine still running after ExecTaskStreaming returned never
// writes to the caller's writer.
type gate struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func newGate(w io.Writer) *gate { return &gate{w: w} }

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return 0, errGateClosed
	}
	if g.w == nil {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}
