package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/term"

	"github.com/nomadish/nomadish/structs"
)

// execStdin is the command's input; a variable so tests can replace it.
var execStdin = os.Stdin

// execOptions are the flags of `alloc exec`.
type execOptions struct {
	task       string
	stdin, tty bool
}

// allocExecCommand is `alloc exec [-task NAME] [-i=true] [-t] ALLOC COMMAND
// [ARGS...]`, as Nomad's: it runs COMMAND inside the running task through
// GET /v1/client/allocation/:id/exec (a WebSocket). -i forwards stdin
// (default true); -t allocates a terminal (default: when stdin is one) and
// puts the local terminal in raw mode, sending its size and changes. The
// exit code is the remote command's. Options go before ALLOC: everything
// after it is the command.
func allocExecCommand(m *Meta, args []string) int {
	f := m.newFlags("alloc exec", "[options] ALLOC COMMAND [ARGS...]")
	var o execOptions
	f.StringVar(&o.task, "task", "", "task to run the command in (needed when the group has several)")
	f.BoolVar(&o.stdin, "i", true, "pass stdin to the command")
	f.BoolVar(&o.tty, "t", term.IsTerminal(int(execStdin.Fd())), "allocate a pseudo-terminal (default: when stdin is a terminal)")
	if code, ok := m.parseLeading(f, args); !ok {
		return code
	}
	pos := f.Args()
	if len(pos) < 2 {
		return m.wrongArgs(f, "the allocation ID and the command to run")
	}
	c := m.client(f)
	id, ok := resolveID(m, allocMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	a, err := c.allocation(id)
	if err != nil {
		return m.errorf("querying allocation: %v", err)
	}
	name, err := pickTask(a, o.task)
	if err != nil {
		return m.errorf("choosing task: %v", err)
	}
	code, err := runExec(m, c, a.ID, name, pos[1:], o)
	if err != nil {
		return m.errorf("running command: %v", err)
	}
	return code
}

// parseLeading parses the flags before the first positional argument only:
// the rest is the remote command and its own flags.
func (m *Meta) parseLeading(f *flags, args []string) (int, bool) {
	err := f.Parse(args)
	if err == nil {
		return exitOK, true
	}
	w, code := m.Err, exitError
	if errors.Is(err, flag.ErrHelp) {
		w, code = m.Out, exitOK
	} else {
		fmt.Fprintf(w, "Error: %v\n", err)
	}
	fmt.Fprintf(w, "Usage: nomadish %s %s\n\nOptions:\n", f.Name(), f.usage)
	f.SetOutput(w)
	f.PrintDefaults()
	f.SetOutput(io.Discard)
	return code, false
}

// runExec runs one exec session and returns the remote exit code.
func runExec(m *Meta, c *apiClient, allocID, task string, command []string, o execOptions) (int, error) {
	conn, err := c.execDial(allocID, task, command, o.tty)
	if err != nil {
		return exitError, err
	}
	defer conn.Close()
	s := &execSession{conn: conn}
	fd := int(execStdin.Fd())
	if o.tty && term.IsTerminal(fd) {
		if old, err := term.MakeRaw(fd); err == nil {
			defer func() { _ = term.Restore(fd, old) }()
		}
		stop := s.watchSize(fd)
		defer stop()
	}
	var in io.Reader = execStdin
	if !o.stdin {
		in = strings.NewReader("")
	}
	go s.sendStdin(in)
	return s.receive(m.Out, m.Err)
}

// execDial opens the exec WebSocket. A refusal before the upgrade is an
// *APIError with the agent's message.
func (c *apiClient) execDial(allocID, task string, command []string, tty bool) (*websocket.Conn, error) {
	if c.err != nil {
		return nil, c.err
	}
	cmd, err := json.Marshal(command)
	if err != nil {
		return nil, err
	}
	q := url.Values{"task": {task}, "command": {string(cmd)}, "tty": {strconv.FormatBool(tty)}}
	u := c.url("/v1/client/allocation/"+esc(allocID)+"/exec", q)
	u = "ws" + strings.TrimPrefix(u, "http") // http -> ws, https -> wss
	d := websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 30 * time.Second,
		TLSClientConfig: c.hc.Transport.(*http.Transport).TLSClientConfig}
	h := http.Header{}
	c.authorize(h)
	conn, resp, err := d.Dial(u, h)
	if err != nil && resp != nil {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, &APIError{Status: resp.StatusCode, Body: string(body)}
	}
	return conn, err
}

// execSession is the client end of an exec WebSocket: one goroutine
// receives, others send (serialized by mu).
type execSession struct {
	mu   sync.Mutex
	conn *websocket.Conn
}

func (s *execSession) send(in *structs.ExecStreamingInput) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn.WriteJSON(in)
}

// sendStdin forwards in, then the end of stdin.
func (s *execSession) sendStdin(in io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			op := &structs.ExecStreamingIOOperation{Data: append([]byte(nil), buf[:n]...)}
			if s.send(&structs.ExecStreamingInput{Stdin: op}) != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	_ = s.send(&structs.ExecStreamingInput{Stdin: &structs.ExecStreamingIOOperation{Close: true}})
}

// watchSize sends the terminal's size now and at each SIGWINCH until stop.
func (s *execSession) watchSize(fd int) (stop func()) {
	sendSize := func() {
		if w, h, err := term.GetSize(fd); err == nil {
			_ = s.send(&structs.ExecStreamingInput{TTYSize: &structs.TerminalSize{Height: h, Width: w}})
		}
	}
	sendSize()
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				sendSize()
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

// receive copies output frames to stdout and stderr until the exit frame,
// whose exit code it returns. A close without one is an error carrying the
// agent's reason.
func (s *execSession) receive(stdout, stderr io.Writer) (int, error) {
	for {
		var out structs.ExecStreamingOutput
		if err := s.conn.ReadJSON(&out); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Text != "" {
				return exitError, errors.New(ce.Text)
			}
			return exitError, fmt.Errorf("connection closed before the command exited: %w", err)
		}
		switch {
		case out.Exited && out.Result != nil:
			s.mu.Lock()
			_ = s.conn.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			s.mu.Unlock()
			return out.Result.ExitCode, nil
		case out.Stdout != nil && len(out.Stdout.Data) > 0:
			_, _ = stdout.Write(out.Stdout.Data)
		case out.Stderr != nil && len(out.Stderr.Data) > 0:
			_, _ = stderr.Write(out.Stderr.Data)
		}
	}
}
