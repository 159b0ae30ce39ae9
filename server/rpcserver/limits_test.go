package rpcserver

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

func dialRPCFrom(t *testing.T, addr, src string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer reports whether the server closed c (the read deadline
// only ends a broken run; nothing is timed).
func closedByServer(c net.Conn) bool {
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := c.Read(make([]byte, 1))
	return err == io.EOF || (err != nil && !strings.Contains(err.Error(), "timeout"))
}

// The RPC port's per-client limit closes the connection over the limit;
// other addresses still get answers.
func TestRPCConnsPerClientLimit(t *testing.T) {
	s := testServer(t, func(c *Config) {
		c.Limits = Limits{MaxConnsPerClient: 2}
	})
	addr := s.Addr()
	dialRPCFrom(t, addr, "127.0.0.20")
	dialRPCFrom(t, addr, "127.0.0.20")
	if !closedByServer(dialRPCFrom(t, addr, "127.0.0.20")) {
		t.Fatal("the third connection from one address was not closed")
	}
	c := rpcclient.New([]string{addr}, nil)
	defer c.Close()
	var leader string
	if err := c.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil || leader == "" {
		t.Fatalf("Status.Leader from another address: %q %v", leader, err)
	}
}

// A connection that never sends its protocol byte is closed after the
// handshake timeout.
func TestRPCHandshakeTimeout(t *testing.T) {
	s := testServer(t, func(c *Config) {
		c.Limits = Limits{HandshakeTimeout: 20 * time.Millisecond}
	})
	if !closedByServer(dialRPCFrom(t, s.Addr(), "127.0.0.21")) {
		t.Fatal("a silent connection outlived the handshake timeout")
	}
}
