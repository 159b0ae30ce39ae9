package base

import (
	"context"
	"io"
)

// TerminalSize is a terminal's size in character cells.
type TerminalSize struct {
	Height int
	Width  int
}

// ExecOptions describe one command to run inside a running task (`alloc
// exec`), modelled on Nomad's drivers.ExecOptions.
type ExecOptions struct {
	// Command is the program and its arguments; Command[0] is looked up in
	// the task's PATH and filesystem view. Required.
	Command []string
	// Tty runs the command on a new pseudo-terminal: stdout and stderr are
	// then one stream, written to Stdout.
	Tty bool
	// Stdin is copied to the command until it returns EOF (the command then
	// sees EOF; with Tty, an end-of-file character). nil: empty input. The
	// driver may still be blocked reading it when ExecTaskStreaming
	// returns: the caller ends such a read by closing its source.
	Stdin io.Reader
	// Stdout and Stderr receive the command's output; nil discards it.
	// Each is written from at most one goroutine at a time, but Stdout and
	// Stderr may be written concurrently.
	Stdout, Stderr io.Writer
	// ResizeCh carries terminal size changes (Tty only); nil: none.
	ResizeCh <-chan TerminalSize
}

// ExecStreamer is the optional interface of a driver whose Capabilities say
// Exec: it runs a command inside a running task's environment (namespaces,
// cgroups, user and environment where the driver has them).
type ExecStreamer interface {
	// ExecTaskStreaming runs opts.Command in task taskID and returns once it
	// has exited and its output is written, with its exit code (128+signal
	// when killed by a signal). Cancelling ctx kills the command. Errors:
	// an unknown task wraps ErrTaskNotFound; a task that has exited, or a
	// command that cannot be started, is an error (and no ExitResult).
	ExecTaskStreaming(ctx context.Context, taskID string, opts *ExecOptions) (*ExitResult, error)
}
