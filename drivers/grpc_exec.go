package drivers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nomadish/nomadish/drivers/base"
	pb "github.com/nomadish/nomadish/drivers/proto"
)

// execChunk bounds the stdin and output bytes of one ExecTask message.
const execChunk = 32 << 10

var (
	_ base.ExecStreamer = (*grpcClient)(nil)
)

// ExecTaskStreaming runs a command in the plugin's task over the ExecTask
// stream (see base.ExecStreamer). A plugin whose driver cannot exec answers
// an error wrapping ErrNotSupported. One goroutine forwards opts.Stdin and
// may stay blocked reading it after the call returns (the contract of
// ExecOptions.Stdin); another forwards ResizeCh until the call returns.
func (c *grpcClient) ExecTaskStreaming(ctx context.Context, taskID string, opts *base.ExecOptions) (*base.ExitResult, error) {
	sctx, cancel := c.callCtx(ctx)
	defer cancel()
	stream, err := c.client.ExecTask(sctx)
	if err != nil {
		return nil, c.fromStatus(err)
	}
	var sendMu sync.Mutex // a gRPC stream takes one sender at a time
	send := func(req *pb.ExecTaskRequest) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return stream.Send(req)
	}
	setup := &pb.ExecTaskSetup{TaskId: taskID, Command: opts.Command, Tty: opts.Tty}
	if err := send(&pb.ExecTaskRequest{Setup: setup}); err != nil {
		return nil, c.recvError(stream)
	}
	go sendStdin(opts.Stdin, send)
	go func() {
		for {
			select {
			case <-sctx.Done():
				return
			case sz, ok := <-opts.ResizeCh:
				if !ok {
					return
				}
				_ = send(&pb.ExecTaskRequest{Resize: &pb.TerminalSize{Height: int32(sz.Height), Width: int32(sz.Width)}})
			}
		}
	}()
	for {
		r, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("drivers: exec stream ended without a result")
			}
			return nil, c.fromStatus(err)
		}
		switch {
		case r.Result != nil:
			return exitFromPB(r.Result), nil
		case len(r.Stdout) > 0 && opts.Stdout != nil:
			_, _ = opts.Stdout.Write(r.Stdout)
		case len(r.Stderr) > 0 && opts.Stderr != nil:
			_, _ = opts.Stderr.Write(r.Stderr)
		}
	}
}

// recvError returns the server's status after a failed Send (gRPC reports
// the real error on Recv).
func (c *grpcClient) recvError(stream pb.Driver_ExecTaskClient) error {
	_, err := stream.Recv()
	if err == nil || errors.Is(err, io.EOF) {
		return fmt.Errorf("drivers: exec stream closed")
	}
	return c.fromStatus(err)
}

// sendStdin forwards in as stdin messages, then stdin_close at EOF. A nil
// in is empty input.
func sendStdin(in io.Reader, send func(*pb.ExecTaskRequest) error) {
	if in != nil {
		buf := make([]byte, execChunk)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				if send(&pb.ExecTaskRequest{Stdin: append([]byte(nil), buf[:n]...)}) != nil {
					return
				}
			}
			if err != nil {
				break
			}
		}
	}
	_ = send(&pb.ExecTaskRequest{StdinClose: true})
}

// ExecTask serves ExecTaskStreaming: it reads the setup message, runs the
// command through the driver's base.ExecStreamer while a goroutine turns
// later messages into stdin and resizes, and sends the output and finally
// the result.
func (s *grpcServer) ExecTask(stream pb.Driver_ExecTaskServer) error {
	ex, ok := s.impl.(base.ExecStreamer)
	if !ok {
		return toStatus(fmt.Errorf("exec: %w", base.ErrNotSupported))
	}
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	if first.Setup == nil || len(first.Setup.Command) == 0 {
		return status.Error(codes.InvalidArgument, "drivers: exec: the first message must carry the task and command")
	}
	stdinR, stdinW := io.Pipe()
	defer stdinR.Close() // unblocks the receiver if the command never read its stdin
	resize := make(chan base.TerminalSize, 4)
	go recvExecInput(stream, stdinW, resize)

	var sendMu sync.Mutex
	out := func(stdout bool) io.Writer {
		return writerFunc(func(p []byte) (int, error) {
			sendMu.Lock()
			defer sendMu.Unlock()
			for rest := p; len(rest) > 0; {
				chunk := rest[:min(len(rest), execChunk)]
				rest = rest[len(chunk):]
				msg := &pb.ExecTaskResponse{Stderr: chunk}
				if stdout {
					msg = &pb.ExecTaskResponse{Stdout: chunk}
				}
				if err := stream.Send(msg); err != nil {
					return len(p) - len(rest) - len(chunk), err
				}
			}
			return len(p), nil
		})
	}
	res, err := ex.ExecTaskStreaming(stream.Context(), first.Setup.TaskId, &base.ExecOptions{
		Command: first.Setup.Command, Tty: first.Setup.Tty,
		Stdin: stdinR, Stdout: out(true), Stderr: out(false), ResizeCh: resize,
	})
	if err != nil {
		return toStatus(err)
	}
	sendMu.Lock()
	defer sendMu.Unlock()
	return stream.Send(&pb.ExecTaskResponse{Result: exitToPB(res)})
}

// recvExecInput feeds stdin and resize messages to the running command
// until the stream ends; it closes stdin at stdin_close or stream end.
// Resizes are dropped when the command does not take them fast enough.
func recvExecInput(stream pb.Driver_ExecTaskServer, stdin *io.PipeWriter, resize chan<- base.TerminalSize) {
	defer stdin.Close()
	for {
		req, err := stream.Recv()
		if err != nil {
			return
		}
		switch {
		case len(req.Stdin) > 0:
			if _, err := stdin.Write(req.Stdin); err != nil {
				return
			}
		case req.StdinClose:
			stdin.Close()
		case req.Resize != nil:
			select {
			case resize <- base.TerminalSize{Height: int(req.Resize.Height), Width: int(req.Resize.Width)}:
			default:
			}
		}
	}
}

// writerFunc adapts a function to io.Writer.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
