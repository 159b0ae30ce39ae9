package nodeconn

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/yamux"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

// secrets is an Authenticator over a map of node ID -> SecretID.
func secrets(m map[string]string) Authenticator {
	return func(node, secret string) error {
		s, ok := m[node]
		if !ok {
			return structs.ErrNodeNotFound
		}
		if s != secret {
			return structs.ErrNodeSecretMismatch
		}
		return nil
	}
}

// openTunnel runs the client side of a tunnel handshake over a pipe to
// r.ServeTunnel and returns the reply and, when accepted, the node's yamux
// session (which serves "hello from NODE" over HTTP).
func openTunnel(t *testing.T, r *Registry, node, secret string) (*rpcclient.HandshakeReply, *yamux.Session) {
	t.Helper()
	cli, srv := net.Pipe()
	go r.ServeTunnel(srv)
	t.Cleanup(func() { cli.Close() })
	if err := rpcclient.WriteFrame(cli, rpcclient.TunnelHello{NodeID: node, SecretID: secret}); err != nil {
		t.Fatal(err)
	}
	var reply rpcclient.HandshakeReply
	if err := rpcclient.ReadFrame(cli, &reply); err != nil {
		t.Fatal(err)
	}
	if reply.Code != 0 {
		return &reply, nil
	}
	sess, err := yamux.Client(cli, rpcclient.YamuxConfig(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hello from "+node)
	})}
	go hs.Serve(sess)
	t.Cleanup(func() { hs.Close() })
	return &reply, sess
}

// get sends one HTTP request over conn and returns the body.
func get(t *testing.T, conn net.Conn) string {
	t.Helper()
	defer conn.Close()
	req, _ := http.NewRequest("GET", "http://node/", nil)
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestTunnelAuth(t *testing.T) {
	r := New(Config{Auth: secrets(map[string]string{"n1": "s1"})})
	defer r.Close()
	for _, tc := range []struct {
		name, node, secret string
		code               int
	}{
		{"wrong secret", "n1", "nope", structs.ErrCodeNodeAuth},
		{"no secret", "n1", "", structs.ErrCodeNodeAuth},
		{"unknown node", "n9", "s1", structs.ErrCodeNotFound},
	} {
		reply, _ := openTunnel(t, r, tc.node, tc.secret)
		if reply.Code != tc.code {
			t.Errorf("%s: reply %+v, want code %d", tc.name, reply, tc.code)
		}
		if r.Connected(tc.node) {
			t.Errorf("%s: a tunnel of %s was registered", tc.name, tc.node)
		}
		if _, err := r.Dial(context.Background(), tc.node); !errors.Is(err, ErrNoPath) {
			t.Errorf("%s: Dial = %v, want ErrNoPath", tc.name, err)
		}
	}
	if reply, _ := openTunnel(t, r, "n1", "s1"); reply.Code != 0 {
		t.Fatalf("right secret refused: %+v", reply)
	}
	conn, err := r.Dial(context.Background(), "n1")
	if err != nil {
		t.Fatal(err)
	}
	if got := get(t, conn); got != "hello from n1" {
		t.Fatalf("through the tunnel: %q", got)
	}
}

// A node's new tunnel replaces its old one; the old one's end does not
// remove the new one.
func TestTunnelReplaced(t *testing.T) {
	r := New(Config{Auth: secrets(map[string]string{"n1": "s1"})})
	defer r.Close()
	_, old := openTunnel(t, r, "n1", "s1")
	_, cur := openTunnel(t, r, "n1", "s1")
	<-old.CloseChan() // closed by the registry when replaced
	if !r.Connected("n1") || cur.IsClosed() {
		t.Fatal("the new tunnel is gone")
	}
	cur.Close()
}

// A server without the node's tunnel reaches it through a peer's
// RPCNodeDial (ServeDial, Forwarded: the peer looks only at its own).
func TestDialThroughPeer(t *testing.T) {
	auth := secrets(map[string]string{"n1": "s1"})
	holder := New(Config{Auth: auth})
	defer holder.Close()
	openTunnel(t, holder, "n1", "s1")
	var asked []NodeDialRequestSeen
	other := New(Config{Auth: auth, Peers: func() []string { return []string{"holder"} },
		DialPeer: func(_ context.Context, addr, node string) (net.Conn, error) {
			cli, srv := net.Pipe()
			go holder.ServeDial(srv)
			conn, err := handshake(cli, rpcclient.NodeDialRequest{NodeID: node, Forwarded: true})
			asked = append(asked, NodeDialRequestSeen{addr, node})
			return conn, err
		}})
	defer other.Close()
	conn, err := other.Dial(context.Background(), "n1")
	if err != nil {
		t.Fatal(err)
	}
	if got := get(t, conn); got != "hello from n1" {
		t.Fatalf("through the peer: %q", got)
	}
	if len(asked) != 1 || asked[0] != (NodeDialRequestSeen{"holder", "n1"}) {
		t.Fatalf("asked %+v", asked)
	}
	// A node no server holds: ErrNoPath (502), after asking the peer.
	if _, err := other.Dial(context.Background(), "n2"); !errors.Is(err, ErrNoPath) {
		t.Fatalf("Dial(n2) = %v, want ErrNoPath", err)
	}
	if code, _ := structs.ErrorCode(ErrNoPath); code != 502 {
		t.Fatalf("ErrNoPath code %d", code)
	}
}

// NodeDialRequestSeen records one peer dial of TestDialThroughPeer.
type NodeDialRequestSeen struct{ Addr, Node string }

// handshake sends req on conn and reads the reply, as rpcclient.DialNode.
func handshake(conn net.Conn, req rpcclient.NodeDialRequest) (net.Conn, error) {
	if err := rpcclient.WriteFrame(conn, req); err != nil {
		return nil, err
	}
	var reply rpcclient.HandshakeReply
	if err := rpcclient.ReadFrame(conn, &reply); err != nil {
		return nil, err
	}
	if err := reply.Err(); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// A forwarded dial to a server without the node's tunnel is answered
// ErrNoPath at once: it never asks further (no loops).
func TestForwardedDialIsOneHop(t *testing.T) {
	asked := 0
	r := New(Config{Auth: secrets(nil), Peers: func() []string { return []string{"x"} },
		DialPeer: func(context.Context, string, string) (net.Conn, error) { asked++; return nil, ErrNoPath }})
	defer r.Close()
	cli, srv := net.Pipe()
	go r.ServeDial(srv)
	_, err := handshake(cli, rpcclient.NodeDialRequest{NodeID: "n1", Forwarded: true})
	if !errors.Is(err, ErrNoPath) && err.Error() != ErrNoPath.Error() {
		t.Fatalf("err = %v, want no path", err)
	}
	if asked != 0 {
		t.Fatalf("a forwarded dial asked %d peers", asked)
	}
}
