// Package rpcclient calls a nomadish server's RPC endpoints over TCP: one
// yamux session per server (a Pool), a stream per call carrying net/rpc
// with the msgpack codec, optionally inside TLS; a Client fails over
// between its servers and rebuilds coded errors. It satisfies the RPCer
// interface of the client and agent packages.
package rpcclient

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"

	"github.com/nomadish/nomadish/structs"
)

// Sentinel errors.
var (
	ErrNoServers = errors.New("rpcclient: no servers configured")
	ErrClosed    = errors.New("rpcclient: client closed")
)

// DialTimeout bounds connecting to one server.
const DialTimeout = 5 * time.Second

// Client calls RPCs on one of its servers, sticking to it until a call
// fails on the connection. Calls run concurrently on separate streams of
// one yamux session per server. Safe for concurrent use.
type Client struct {
	logger  hclog.Logger
	pool    *Pool
	ownPool bool // Close closes pool

	mu      sync.Mutex
	servers []string // guarded by mu
	next    int      // guarded by mu: index of the server to use
	closed  bool     // guarded by mu
}

// Option adjusts New.
type Option func(*Client)

// WithTLS dials servers with TLS (the RPCTLS byte, then the handshake)
// using cfg. Ignored when WithPool is given (the pool has its own).
func WithTLS(cfg *tls.Config) Option {
	return func(c *Client) {
		if c.ownPool {
			c.pool = NewPool(cfg, c.logger)
		}
	}
}

// WithPool makes the client use a shared pool, which Close leaves open.
func WithPool(p *Pool) Option {
	return func(c *Client) { c.pool, c.ownPool = p, false }
}

// New returns a client for servers (host:port of their RPC address). By
// default it owns a plaintext Pool.
func New(servers []string, logger hclog.Logger, opts ...Option) *Client {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	c := &Client{servers: slices.Clone(servers), logger: logger.Named("rpcclient"), ownPool: true}
	c.pool = NewPool(nil, logger)
	for _, o := range opts {
		o(c)
	}
	return c
}

// SetServers replaces the server list; the next call starts with the
// first server of the new list.
func (c *Client) SetServers(servers []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.servers, c.next = slices.Clone(servers), 0
}

// Servers returns the current server list.
func (c *Client) Servers() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.servers)
}

// RPC calls method with args, filling reply. On a connection failure it
// moves to the next server and retries, trying each server once (plus one
// more attempt, so a single server is redialed after its connection
// broke). Errors the endpoint returned come back rebuilt with
// structs.DecodeRPCError.
func (c *Client) RPC(method string, args, reply any) error {
	var lastErr error
	for attempt := 0; ; attempt++ {
		addr, n, err := c.pick()
		if err != nil {
			return err
		}
		if attempt > n {
			return fmt.Errorf("rpcclient: %s: no server reachable: %w", method, lastErr)
		}
		err = c.pool.RPC(addr, method, args, reply)
		if err == nil || !isConnErr(err) {
			return err
		}
		c.logger.Debug("RPC connection failed: trying the next server", "method", method, "server", addr, "error", err)
		c.advance(addr)
		lastErr = err
	}
}

// pick returns the current server and how many servers there are.
func (c *Client) pick() (string, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return "", 0, ErrClosed
	}
	if len(c.servers) == 0 {
		return "", 0, ErrNoServers
	}
	return c.servers[c.next%len(c.servers)], len(c.servers), nil
}

// advance moves past addr if it is still the current server.
func (c *Client) advance(addr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.servers) > 0 && c.servers[c.next%len(c.servers)] == addr {
		c.next++
	}
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

// Close closes the client (and its pool unless shared); later calls fail
// with ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	if c.ownPool {
		return c.pool.Close()
	}
	return nil
}
