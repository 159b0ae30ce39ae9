package agent

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// fakeExecer is a client that can exec: the command echoes its stdin to
// stdout, reports the last terminal size on stderr and exits with 7.
type fakeExecer struct {
	*fakeLogs
	checkErr error
	got      []string // allocID, task, command, tty of the last AllocExec
}

func (f *fakeExecer) CheckAllocExec(allocID, task string) error { return f.checkErr }

func (f *fakeExecer) AllocExec(ctx context.Context, allocID, task string, opts *base.ExecOptions) (*base.ExitResult, error) {
	f.got = []string{allocID, task, strings.Join(opts.Command, " "), fmt.Sprint(opts.Tty)}
	if _, err := io.Copy(opts.Stdout, opts.Stdin); err != nil {
		return nil, err
	}
	select {
	case sz := <-opts.ResizeCh:
		fmt.Fprintf(opts.Stderr, "size %dx%d", sz.Width, sz.Height)
	default:
	}
	return &base.ExitResult{ExitCode: 7}, nil
}

func execServer(ex LogSource) *httpServer {
	s, _ := logsServer("n1", nil)
	s.Logs = ex
	return s
}

func execPath(query string) string {
	return "/v1/client/allocation/" + logsAllocID + "/exec?" + query
}

// Refusals come before the upgrade, as plain HTTP errors.
func TestAllocExecRefusals(t *testing.T) {
	cmd := "command=" + url.QueryEscape(`["sh","-c","true"]`)
	ok := &fakeExecer{fakeLogs: &fakeLogs{nodeID: "n1"}}
	cases := []struct {
		name, path string
		src        LogSource
		code       int
		body       string
	}{
		{"no task", execPath(cmd), ok, 400, "missing task"},
		{"no command", execPath("task=t"), ok, 400, "missing command"},
		{"bad command", execPath("task=t&command=sh"), ok, 400, "JSON array"},
		{"empty command", execPath("task=t&command=%5B%5D"), ok, 400, "command is empty"},
		{"bad tty", execPath("task=t&tty=maybe&" + cmd), ok, 400, "tty"},
		{"unknown alloc", "/v1/client/allocation/nope/exec?task=t&" + cmd, ok, 404, "unknown allocation"},
		{"unknown task", execPath("task=x&" + cmd), ok, 404, `unknown task "x"`},
		{"not running", execPath("task=t&" + cmd), &fakeExecer{fakeLogs: ok.fakeLogs,
			checkErr: structs.NewCodedError(400, "task \"t\": task not running")}, 400, "not running"},
		{"no exec", execPath("task=t&" + cmd), ok.fakeLogs, 501, "not on this agent"},
		{"other node", execPath("task=t&" + cmd), &fakeExecer{fakeLogs: &fakeLogs{nodeID: "n2"}}, 501, "not on this agent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantStatus(t, do(t, execServer(c.src), "GET", c.path, ""), c.code, c.body)
		})
	}
}

// A session: stdin and a resize in, output frames, the exit frame with the
// code, then a normal close.
func TestAllocExecSession(t *testing.T) {
	ex := &fakeExecer{fakeLogs: &fakeLogs{nodeID: "n1"}}
	srv := httptest.NewServer(execServer(ex))
	defer srv.Close()
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + execPath("task=t&tty=true&command="+url.QueryEscape(`["cat","-"]`))
	conn, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for _, in := range []structs.ExecStreamingInput{
		{}, // heartbeat
		{Stdin: &structs.ExecStreamingIOOperation{Data: []byte("hello\n")}},
		{TTYSize: &structs.TerminalSize{Height: 24, Width: 80}},
		{Stdin: &structs.ExecStreamingIOOperation{Close: true}},
	} {
		if err := conn.WriteJSON(in); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr strings.Builder
	for {
		var out structs.ExecStreamingOutput
		if err := conn.ReadJSON(&out); err != nil {
			t.Fatalf("no exit frame; stdout %q stderr %q: %v", stdout.String(), stderr.String(), err)
		}
		if out.Stdout != nil {
			stdout.Write(out.Stdout.Data)
		}
		if out.Stderr != nil {
			stderr.Write(out.Stderr.Data)
		}
		if out.Exited {
			if out.Result == nil || out.Result.ExitCode != 7 {
				t.Fatalf("exit frame %+v", out)
			}
			break
		}
	}
	if stdout.String() != "hello\n" || stderr.String() != "size 80x24" {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if want := []string{logsAllocID, "t", "cat -", "true"}; strings.Join(ex.got, "|") != strings.Join(want, "|") {
		t.Fatalf("AllocExec got %v, want %v", ex.got, want)
	}
	_, _, err = conn.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("after the exit frame: %v, want a normal close", err)
	}
}
