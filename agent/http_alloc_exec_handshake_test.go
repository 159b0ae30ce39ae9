package agent

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/gorilla/websocket"

	"github.com/nomadish/nomadish/structs"
)

// handshakeServer is an exec server whose ACL check allows only "secret".
func handshakeServer(t *testing.T) (*httptest.Server, *fakeRPC) {
	s, f := logsServer("n1", nil)
	s.Logs = &fakeExecer{fakeLogs: &fakeLogs{nodeID: "n1"}}
	f.on(structs.ACLAllowAllocOperationRPC, func(args, _ any) error {
		if args.(*structs.ACLAllowAllocRequest).AuthToken != "secret" {
			return structs.ErrPermissionDenied
		}
		return nil
	})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv, f
}

func dialExec(t *testing.T, srv *httptest.Server, query string) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + execPath(query+"&task=t&command="+url.QueryEscape(`["cat"]`))
	conn, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	return conn
}

// With ?ws_handshake=true the token comes in the first frame, as Nomad's
// web UI sends it: the right token runs the command, a wrong one is closed
// with 4403 before anything runs.
func TestAllocExecHandshakeToken(t *testing.T) {
	srv, _ := handshakeServer(t)

	conn := dialExec(t, srv, "ws_handshake=true")
	for _, f := range []any{
		wsHandshakeMessage{Version: 1, AuthToken: "secret"},
		structs.ExecStreamingInput{Stdin: &structs.ExecStreamingIOOperation{Data: []byte("hi\n")}},
		structs.ExecStreamingInput{Stdin: &structs.ExecStreamingIOOperation{Close: true}},
	} {
		if err := conn.WriteJSON(f); err != nil {
			t.Fatal(err)
		}
	}
	var got strings.Builder
	for {
		var out structs.ExecStreamingOutput
		if err := conn.ReadJSON(&out); err != nil {
			t.Fatalf("no exit frame after %q: %v", got.String(), err)
		}
		if out.Stdout != nil {
			got.Write(out.Stdout.Data)
		}
		if out.Exited {
			break
		}
	}
	if got.String() != "hi\n" {
		t.Fatalf("stdout %q, want the echoed stdin", got.String())
	}

	bad := dialExec(t, srv, "ws_handshake=true")
	if err := bad.WriteJSON(wsHandshakeMessage{Version: 1, AuthToken: "wrong"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := bad.ReadMessage()
	if !websocket.IsCloseError(err, 4403) || !strings.Contains(err.Error(), "Permission denied") {
		t.Fatalf("wrong token: %v, want close 4403 Permission denied", err)
	}

	noHello := dialExec(t, srv, "ws_handshake=true")
	if err := noHello.WriteJSON(wsHandshakeMessage{Version: 2}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := noHello.ReadMessage(); !websocket.IsCloseError(err, 4400) {
		t.Fatalf("bad handshake version: %v, want close 4400", err)
	}
}

// Without the handshake the token must be in the headers: refused before
// the upgrade, as before.
func TestAllocExecWithoutHandshakeNeedsHeaderToken(t *testing.T) {
	srv, _ := handshakeServer(t)
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + execPath("task=t&command="+url.QueryEscape(`["cat"]`))
	_, resp, err := websocket.DefaultDialer.Dial(u, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("no token: err %v, resp %v; want a 403 before the upgrade", err, resp)
	}
	conn, _, err := websocket.DefaultDialer.Dial(u, http.Header{"X-Nomad-Token": {"secret"}})
	if err != nil {
		t.Fatalf("token in the header: %v", err)
	}
	conn.Close()
}

// A handshake session for another node's allocation is relayed to that
// node's client over the tunnel, the token going along in the headers
// (both agents check it).
func TestAllocExecHandshakeForwarded(t *testing.T) {
	checkToken := func(f *fakeRPC, seen *[]string) {
		f.on(structs.ACLAllowAllocOperationRPC, func(args, _ any) error {
			tok := args.(*structs.ACLAllowAllocRequest).AuthToken
			*seen = append(*seen, tok)
			if tok != "secret" {
				return structs.ErrPermissionDenied
			}
			return nil
		})
	}
	back, backRPC := logsServer("n2", nil)
	remote := &fakeExecer{fakeLogs: &fakeLogs{nodeID: "n2"}}
	back.Logs = remote
	var backSeen, frontSeen []string
	checkToken(backRPC, &backSeen)
	tunnel := httptest.NewServer(tunnelHandler(back))
	t.Cleanup(tunnel.Close)
	front, frontRPC := logsServer("n2", nil)
	front.Logs = &fakeExecer{fakeLogs: &fakeLogs{nodeID: "n1"}}
	checkToken(frontRPC, &frontSeen)
	var asked []string
	front.Nodes = tcpDialer(tunnel, &asked)
	srv := httptest.NewServer(front)
	t.Cleanup(srv.Close)

	conn := dialExec(t, srv, "ws_handshake=true")
	for _, f := range []any{
		wsHandshakeMessage{Version: 1, AuthToken: "secret"},
		structs.ExecStreamingInput{Stdin: &structs.ExecStreamingIOOperation{Data: []byte("far\n")}},
		structs.ExecStreamingInput{Stdin: &structs.ExecStreamingIOOperation{Close: true}},
	} {
		if err := conn.WriteJSON(f); err != nil {
			t.Fatal(err)
		}
	}
	var got strings.Builder
	for {
		var out structs.ExecStreamingOutput
		if err := conn.ReadJSON(&out); err != nil {
			t.Fatalf("no exit frame after %q: %v", got.String(), err)
		}
		if out.Stdout != nil {
			got.Write(out.Stdout.Data)
		}
		if out.Exited {
			if out.Result == nil || out.Result.ExitCode != 7 {
				t.Fatalf("exit frame %+v", out)
			}
			break
		}
	}
	if _, _, err := conn.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("after the exit frame: %v, want the node's normal close", err)
	}
	if got.String() != "far\n" || len(remote.got) == 0 || len(asked) != 1 || asked[0] != "n2" {
		t.Fatalf("stdout %q, remote exec %v, dialed %v", got.String(), remote.got, asked)
	}
	if strings.Join(frontSeen, ",") != "secret" || strings.Join(backSeen, ",") != "secret" {
		t.Fatalf("tokens checked: front %q, node %q", frontSeen, backSeen)
	}
}
