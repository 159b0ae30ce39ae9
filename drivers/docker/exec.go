package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/nomadish/nomadish/drivers/base"
)

var _ base.ExecStreamer = (*Driver)(nil)

// execExitWait bounds how long the exit code of an exec whose output has
// ended is waited for.
const execExitWait = 10 * time.Second

// ttyEOF is the end-of-file character of a terminal (^D), sent when stdin
// ends in Tty mode.
const ttyEOF = 0x04

// ExecTaskStreaming runs opts.Command in the task's container with the
// engine's exec API (create, attach, resize, inspect): the container's
// user, environment and working directory. See base.ExecStreamer. When
// ctx ends the command's process is SIGKILLed.
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
	created, err := t.cli.ContainerExecCreate(ctx, t.state.ContainerID, container.ExecOptions{
		Cmd: opts.Command, Tty: opts.Tty, AttachStdin: true, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return nil, fmt.Errorf("exec in task %q: creating the exec: %w", taskID, err)
	}
	id := created.ID
	hj, err := t.cli.ContainerExecAttach(ctx, id, container.ExecAttachOptions{Tty: opts.Tty})
	if err != nil {
		return nil, fmt.Errorf("exec in task %q: starting the exec: %w", taskID, err)
	}
	defer hj.Close()
	d.logger.Debug("exec in task", "task", taskID, "exec_id", id, "command", opts.Command, "tty", opts.Tty)

	done := make(chan struct{})
	defer close(done)
	go func() { // a cancelled exec is killed; closing the stream unblocks the copy
		select {
		case <-ctx.Done():
			t.killExec(id)
			hj.Close()
		case <-done:
		}
	}()
	go t.forwardResizes(id, opts.ResizeCh, done)
	go func() {
		if opts.Stdin != nil {
			_, _ = io.Copy(hj.Conn, opts.Stdin)
		}
		if opts.Tty {
			// Half-closing a tty exec's stream makes the engine drop its
			// output: the terminal gets an end-of-file character instead.
			_, _ = hj.Conn.Write([]byte{ttyEOF})
			return
		}
		_ = hj.CloseWrite()
	}()
	stdout, stderr := opts.Stdout, opts.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	if opts.Tty {
		_, err = io.Copy(stdout, hj.Reader)
	} else {
		_, err = stdcopy.StdCopy(stdout, stderr, hj.Reader)
	}
	if ctx.Err() != nil {
		return &base.ExitResult{ExitCode: 128 + int(syscall.SIGKILL), Signal: int(syscall.SIGKILL)}, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("exec in task %q: reading output: %w", taskID, err)
	}
	return t.execExit(id)
}

// forwardResizes applies terminal sizes from ch to exec id until done.
func (t *task) forwardResizes(id string, ch <-chan base.TerminalSize, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case sz, ok := <-ch:
			if !ok {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			err := t.cli.ContainerExecResize(ctx, id, container.ResizeOptions{Height: uint(sz.Height), Width: uint(sz.Width)})
			cancel()
			if err != nil {
				t.logger.Debug("resizing exec terminal", "exec_id", id, "error", err)
			}
		}
	}
}

// execExit waits (bounded) for exec id to be reported as ended and returns
// its exit code.
func (t *task) execExit(id string) (*base.ExitResult, error) {
	deadline := time.Now().Add(execExitWait)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		ins, err := t.cli.ContainerExecInspect(ctx, id)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("exec %s: reading its exit code: %w", id, err)
		}
		if !ins.Running {
			return &base.ExitResult{ExitCode: ins.ExitCode}, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("exec %s: output ended but the command still runs after %v", id, execExitWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killExec SIGKILLs the process of exec id (its host pid, from the engine).
func (t *task) killExec(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if ins, err := t.cli.ContainerExecInspect(ctx, id); err == nil && ins.Running && ins.Pid > 0 {
		_ = syscall.Kill(ins.Pid, syscall.SIGKILL)
	}
}
