package cluster

import (
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/rpcclient"
)

// StreamLayer is raft's StreamLayer over the server's shared RPC port:
// incoming raft connections arrive through Handoff (the RPC listener saw
// their first byte, RPCRaft), outgoing ones announce themselves with
// RPCRaft.
type StreamLayer struct {
	addr      net.Addr
	tls       *tls.Config // nil: plaintext
	connCh    chan net.Conn
	closeCh   chan struct{}
	closeOnce sync.Once
}

var _ raft.StreamLayer = (*StreamLayer)(nil)

// NewStreamLayer returns a layer advertising addr that dials peers inside
// tlsCfg (nil: plaintext).
func NewStreamLayer(addr net.Addr, tlsCfg *tls.Config) *StreamLayer {
	return &StreamLayer{addr: addr, tls: tlsCfg, connCh: make(chan net.Conn), closeCh: make(chan struct{})}
}

// Handoff gives raft an incoming connection; raft's transport owns it from
// then on (it is closed if the layer is closed).
func (l *StreamLayer) Handoff(c net.Conn) {
	select {
	case l.connCh <- c:
	case <-l.closeCh:
		c.Close()
	}
}

// Accept waits for the next incoming raft connection.
func (l *StreamLayer) Accept() (net.Conn, error) {
	select {
	case c := <-l.connCh:
		return c, nil
	case <-l.closeCh:
		return nil, errors.New("server: raft layer closed")
	}
}

// Close stops Accept. Safe to call twice.
func (l *StreamLayer) Close() error {
	l.closeOnce.Do(func() { close(l.closeCh) })
	return nil
}

// Addr is the advertised address.
func (l *StreamLayer) Addr() net.Addr { return l.addr }

// Dial opens a raft connection to a peer's RPC port (inside TLS when the
// server has RPC TLS).
func (l *StreamLayer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return rpcclient.Dial(string(address), rpcclient.RPCRaft, l.tls, timeout)
}
