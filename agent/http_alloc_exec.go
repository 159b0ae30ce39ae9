package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// TaskExecer is the optional part of the agent's own client (the
// LogSource, client.Client) that runs commands in local tasks for
// GET /v1/client/allocation/:id/exec. Errors are *structs.CodedError: 404
// unknown alloc or task, 400 task not running or a driver that cannot exec.
type TaskExecer interface {
	// CheckAllocExec reports whether AllocExec can run now (checked before
	// the connection is upgraded, so the refusal is a plain HTTP error).
	CheckAllocExec(allocID, task string) error
	// AllocExec runs opts.Command in the task until it exits or ctx ends.
	AllocExec(ctx context.Context, allocID, task string, opts *base.ExecOptions) (*base.ExitResult, error)
}

// execCloseWait bounds how long the close handshake may take.
const execCloseWait = time.Second

// maxCloseReason is the longest close reason a WebSocket control frame
// holds (125 bytes of payload minus the 2-byte code).
const maxCloseReason = 123

// execUpgrader upgrades exec requests; its default origin check refuses
// browser pages of other origins.
var execUpgrader = websocket.Upgrader{ReadBufferSize: 4096, WriteBufferSize: 4096}

// execRequest holds the parameters of GET /v1/client/allocation/:id/exec.
type execRequest struct {
	allocID, task string
	command       []string
	tty           bool
}

func parseExecRequest(r *http.Request) (*execRequest, error) {
	q := r.URL.Query()
	er := &execRequest{allocID: r.PathValue("id"), task: q.Get("task")}
	if er.task == "" {
		return nil, badRequest("missing task: name the task with ?task=NAME")
	}
	raw := q.Get("command")
	if raw == "" {
		return nil, badRequest(`missing command: pass it as a JSON array, e.g. ?command=["sh","-c","date"]`)
	}
	if err := json.Unmarshal([]byte(raw), &er.command); err != nil {
		return nil, badRequest("command must be a JSON array of strings: %v", err)
	}
	if len(er.command) == 0 || er.command[0] == "" {
		return nil, badRequest("command is empty: it needs at least the program to run")
	}
	var err error
	if er.tty, err = parseBool(r, "tty"); err != nil {
		return nil, err
	}
	return er, nil
}

// allocExec serves GET /v1/client/allocation/:id/exec?task=&command=&tty=
// (api.Allocations().Exec): after the checks it upgrades to a WebSocket and
// runs the exec session (Nomad's frames, structs.ExecStreaming*). Before
// the upgrade: 400 bad parameters, task not running or a driver that
// cannot exec; 404 unknown alloc or task; 501 an alloc of another node.
func (s *httpServer) allocExec(w http.ResponseWriter, r *http.Request) (any, error) {
	er, err := parseExecRequest(r)
	if err != nil {
		return nil, err
	}
	ex, err := s.execClient(r, er)
	if err != nil {
		return nil, err
	}
	if err := ex.CheckAllocExec(er.allocID, er.task); err != nil {
		return nil, err
	}
	conn, err := execUpgrader.Upgrade(w, r, nil)
	if err != nil {
		return nil, nil // Upgrade answered the client already
	}
	defer conn.Close()
	s.execSession(r.Context(), conn, ex, er)
	return nil, nil
}

// execClient checks that the allocation is known, has the task and runs
// on this agent's client, and returns that client.
func (s *httpServer) execClient(r *http.Request, er *execRequest) (TaskExecer, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	q.MinQueryIndex, q.AllowStale = 0, true
	alloc, _, err := s.getAlloc(er.allocID, q)
	if err != nil {
		return nil, err
	}
	if alloc == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "unknown allocation %q", er.allocID)
	}
	if alloc.Job != nil {
		tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup)
		if tg == nil || tg.LookupTask(er.task) == nil {
			return nil, structs.NewCodedError(structs.ErrCodeNotFound, "unknown task %q in allocation %s", er.task, alloc.ID)
		}
	}
	ex, ok := s.Logs.(TaskExecer)
	if s.Logs == nil || !ok || alloc.NodeID != s.Logs.NodeID() {
		return nil, structs.NewCodedError(http.StatusNotImplemented, "alloc is not on this agent's client (node %s)", alloc.NodeID)
	}
	return ex, nil
}

// execSession runs the command with the WebSocket as its terminal: input
// frames become stdin and resizes, output becomes frames, then the exit
// frame and a normal close. A failure after the upgrade closes with 1011
// and the error as the reason. The command is killed if the client goes
// away first.
func (s *httpServer) execSession(ctx context.Context, conn *websocket.Conn, ex TaskExecer, er *execRequest) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &execFrames{conn: conn}
	stdinR, stdinW := io.Pipe()
	resize := make(chan base.TerminalSize, 8)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		readExecInput(conn, stdinW, resize, cancel)
	}()

	res, err := ex.AllocExec(ctx, er.allocID, er.task, &base.ExecOptions{
		Command: er.command, Tty: er.tty, Stdin: stdinR, ResizeCh: resize,
		Stdout: out.writer(false), Stderr: out.writer(true),
	})
	stdinR.Close() // ends a copy into stdin still in progress
	switch {
	case err != nil:
		s.Logger.Debug("exec failed", "alloc_id", er.allocID, "task", er.task, "error", err)
		_, msg := errorStatus(err)
		out.close(websocket.CloseInternalServerErr, msg)
	case out.send(&structs.ExecStreamingOutput{Exited: true,
		Result: &structs.ExecStreamingExitResult{ExitCode: res.ExitCode}}) == nil:
		out.close(websocket.CloseNormalClosure, "")
	}
	// Wait (bounded) for the client's close: closing the connection with
	// its frames unread could reset it before it read ours.
	select {
	case <-readDone:
	case <-time.After(execCloseWait):
	}
}

// readExecInput turns client frames into stdin and resizes until the
// connection fails or closes, which cancels the session (the client is
// gone). Heartbeats and unknown frames are ignored.
func readExecInput(conn *websocket.Conn, stdin *io.PipeWriter, resize chan<- base.TerminalSize, cancel context.CancelFunc) {
	defer cancel()
	defer stdin.Close()
	for {
		var in structs.ExecStreamingInput
		if err := conn.ReadJSON(&in); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				continue
			}
			return
		}
		switch {
		case in.Stdin != nil && len(in.Stdin.Data) > 0:
			if _, err := stdin.Write(in.Stdin.Data); err != nil {
				return
			}
		case in.Stdin != nil && in.Stdin.Close:
			stdin.Close()
		case in.TTYSize != nil:
			select {
			case resize <- base.TerminalSize{Height: in.TTYSize.Height, Width: in.TTYSize.Width}:
			default: // the command is behind: a later size will follow
			}
		}
	}
}

// execFrames writes output frames; a WebSocket takes one writer at a time.
type execFrames struct {
	mu   sync.Mutex
	conn *websocket.Conn
}

func (f *execFrames) send(frame *structs.ExecStreamingOutput) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conn.WriteJSON(frame)
}

// writer returns the io.Writer of stdout or stderr: each write is one frame.
func (f *execFrames) writer(stderr bool) io.Writer {
	return frameWriterFunc(func(p []byte) (int, error) {
		for rest := p; len(rest) > 0; {
			chunk := rest[:min(len(rest), maxFrameData)]
			rest = rest[len(chunk):]
			op := &structs.ExecStreamingIOOperation{Data: chunk}
			frame := &structs.ExecStreamingOutput{Stdout: op}
			if stderr {
				frame = &structs.ExecStreamingOutput{Stderr: op}
			}
			if err := f.send(frame); err != nil {
				return len(p) - len(rest) - len(chunk), err
			}
		}
		return len(p), nil
	})
}

// close sends a close frame with code and reason (cut to fit).
func (f *execFrames) close(code int, reason string) {
	if len(reason) > maxCloseReason {
		reason = reason[:maxCloseReason]
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = f.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason),
		time.Now().Add(execCloseWait))
}

// frameWriterFunc adapts a function to io.Writer.
type frameWriterFunc func(p []byte) (int, error)

func (f frameWriterFunc) Write(p []byte) (int, error) { return f(p) }
