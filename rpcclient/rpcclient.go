// Package rpcclient calls a nomadish server's RPC endpoints over TCP
// (net/rpc with the msgpack codec), failing over between servers and
// rebuilding coded errors. It satisfies the RPCer interface of the client
// and agent packages.
package rpcclient

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"

	"github.com/nomadish/nomadish/structs"
)

// rpcNomad is the first byte of an RPC connection (server.RPCNomad; the
// server's RPC port also carries raft).
const rpcNomad byte = 0x01

// Sentinel errors.
var (
	ErrNoServers = errors.New("rpcclient: no servers configured")
	ErrClosed    = errors.New("rpcclient: client closed")
)

// DialTimeout bounds connecting to one server.
const DialTimeout = 5 * time.Second

// Client calls RPCs on one of its servers over a single reused connection
// (net/rpc multiplexes concurrent calls on it). Safe for concurrent use.
type Client struct {
	servers []string
	logger  hclog.Logger

	mu     sync.Mutex
	next   int         // guarded by mu: index of the server to use
	conn   *rpc.Client // guarded by mu: nil when not connected
	closed bool        // guarded by mu
}

// New returns a client for servers (host:port of their RPC address).
func New(servers []string, logger hclog.Logger) *Client {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Client{servers: append([]string(nil), servers...), logger: logger.Named("rpcclient")}
}

// RPC calls method with args, filling reply. On a connection failure it
// reconnects to the next server and retries, trying each server once (plus
// one more attempt, so a single server is redialed after its connection
// broke). Errors the
// endpoint returned come back rebuilt with structs.DecodeRPCError.
func (c *Client) RPC(method string, args, reply any) error {
	if len(c.servers) == 0 {
		return ErrNoServers
	}
	var lastErr error
	for attempt := 0; attempt <= len(c.servers); attempt++ {
		conn, err := c.connect()
		if err != nil {
			if errors.Is(err, ErrClosed) {
				return err
			}
			lastErr = err
			continue
		}
		err = conn.Call(method, args, reply)
		var se rpc.ServerError
		if errors.As(err, &se) {
			return structs.DecodeRPCError(string(se))
		}
		if err == nil {
			return nil
		}
		if !isConnErr(err) {
			return err
		}
		c.logger.Debug("RPC connection failed: trying the next server", "method", method, "error", err)
		c.drop(conn)
		lastErr = err
	}
	return fmt.Errorf("rpcclient: %s: no server reachable: %w", method, lastErr)
}

// isConnErr reports whether err means the connection broke.
func isConnErr(err error) bool {
	var ne net.Error
	return errors.Is(err, rpc.ErrShutdown) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne)
}

// connect returns the current connection, dialing the next server if
// there is none. A failed dial moves on to the following server.
func (c *Client) connect() (*rpc.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if c.conn != nil {
		return c.conn, nil
	}
	addr := c.servers[c.next%len(c.servers)]
	conn, err := net.DialTimeout("tcp", addr, DialTimeout)
	if err != nil {
		c.next++
		return nil, fmt.Errorf("dialing %s: %w", addr, err)
	}
	if _, err := conn.Write([]byte{rpcNomad}); err != nil {
		conn.Close()
		c.next++
		return nil, fmt.Errorf("writing to %s: %w", addr, err)
	}
	c.conn = rpc.NewClientWithCodec(NewCodec(conn))
	return c.conn, nil
}

// Codec is the msgpack net/rpc codec with a race-free Close: the library's
// Close sets an unsynchronized flag that its reader goroutine reads, so
// Close here only closes the connection (the reader then fails and stops).
type Codec struct {
	*msgpackrpc.MsgpackCodec
	conn io.Closer
}

// NewCodec returns a client or server codec over conn using
// structs.MsgpackHandle.
func NewCodec(conn io.ReadWriteCloser) *Codec {
	return &Codec{MsgpackCodec: msgpackrpc.NewCodecFromHandle(true, true, conn, structs.MsgpackHandle), conn: conn}
}

// Close closes the connection.
func (c *Codec) Close() error { return c.conn.Close() }

// drop closes a broken connection and moves to the next server.
func (c *Client) drop(conn *rpc.Client) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == conn {
		c.conn.Close()
		c.conn = nil
		c.next++
	}
}

// Close closes the connection; later calls fail with ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.conn != nil {
		err := c.conn.Close()
		c.conn = nil
		return err
	}
	return nil
}
