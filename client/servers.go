package client

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"os"
	"reflect"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/structs"
)

// ErrNoServers is what ServerManager.RPC returns when it knows no server.
var ErrNoServers = errors.New("client: no servers known")

// Dialer returns the RPCer that calls one server (host:port of its RPC
// address), e.g. an rpcclient.Client for that one address. It is called at
// most once per address while the address stays known.
type Dialer func(addr string) RPCer

// TimeoutRPCer is the optional interface of an RPCer that can bound each
// server attempt (ServerManager); the heartbeat loop uses it so that a hung
// server does not hold the node's heartbeats past its TTL.
type TimeoutRPCer interface {
	RPCTimeout(method string, args, reply any, timeout time.Duration) error
}

// ServerSetter is the optional interface of an RPCer that fails over
// between servers: the client hands it the servers listed in each register
// and heartbeat reply.
type ServerSetter interface {
	SetServers(learned []string)
}

// ServerManager is the RPCer of a client agent without an in-process
// server: it calls one server at a time and fails over to the next when a
// call fails with a retryable error (Retryable: the server is unreachable,
// the connection broke, or the server has no leader). The configured
// servers are always kept; the servers learned from heartbeat replies
// replace the previously learned ones. A server that failed moves to the
// end of the list, so the next call starts with one that worked. Callers
// back off between calls that fail on every server (the heartbeat loop and
// the alloc watch do). Safe for concurrent use.
type ServerManager struct {
	dial       Dialer
	logger     hclog.Logger
	configured []string

	mu      sync.Mutex
	servers []string         // guarded by mu: preferred first
	conns   map[string]RPCer // guarded by mu: by address
	closed  bool             // guarded by mu
}

var (
	_ RPCer        = (*ServerManager)(nil)
	_ ServerSetter = (*ServerManager)(nil)
	_ TimeoutRPCer = (*ServerManager)(nil)
)

// NewServerManager returns a manager over the configured servers, in their
// order (duplicates dropped).
func NewServerManager(configured []string, dial Dialer, logger hclog.Logger) *ServerManager {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	m := &ServerManager{dial: dial, logger: logger.Named("servers"), conns: map[string]RPCer{}}
	m.configured = mergeServers(nil, configured)
	m.servers = slices.Clone(m.configured)
	return m
}

// RPC calls method on the preferred server and, on a retryable error, on
// each other known server in turn (each at most once per call). A
// non-retryable error (one the endpoint returned) comes back at once. When
// every server failed, the error wraps the last server's.
func (m *ServerManager) RPC(method string, args, reply any) error {
	return m.call(method, args, reply, 0)
}

// call is RPC and RPCTimeout (timeout 0: none).
func (m *ServerManager) call(method string, args, reply any, timeout time.Duration) error {
	list := m.Servers()
	if len(list) == 0 {
		return ErrNoServers
	}
	var lastErr error
	for i, addr := range list {
		conn, err := m.conn(addr)
		if err != nil {
			return err
		}
		err = callWithin(conn, method, args, reply, timeout)
		if err == nil || !Retryable(err) {
			if err == nil && i > 0 {
				m.logger.Debug("call answered by another server", "server", addr, "method", method)
			}
			return err
		}
		if i == 0 {
			m.logger.Info("preferred server failed: failing over to the next one", "server", addr, "method", method, "error", err)
		} else {
			m.logger.Debug("server call failed: trying the next server", "server", addr, "method", method, "error", err)
		}
		m.demote(addr)
		lastErr = err
	}
	return fmt.Errorf("client: %s: all %d servers failed: %w", method, len(list), lastErr)
}

// RPCTimeout is RPC with each server's attempt bounded by timeout: an
// attempt that has no answer by then counts as a retryable failure (a hung
// or partitioned server) and the next server is tried. The abandoned call
// fills a reply of its own, never reply.
func (m *ServerManager) RPCTimeout(method string, args, reply any, timeout time.Duration) error {
	return m.call(method, args, reply, timeout)
}

// SetServers replaces the learned servers with learned: the list becomes
// the current servers still configured or learned, in their order, then the
// new ones. Connections to servers no longer listed are closed.
func (m *ServerManager) SetServers(learned []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	keep := mergeServers(slices.Clone(m.configured), learned)
	var next []string
	for _, s := range m.servers {
		if slices.Contains(keep, s) {
			next = append(next, s)
		}
	}
	next = mergeServers(next, keep)
	if !slices.Equal(next, m.servers) {
		m.logger.Debug("server list updated", "servers", next)
	}
	m.servers = next
	for addr, c := range m.conns {
		if !slices.Contains(next, addr) {
			closeRPCer(c)
			delete(m.conns, addr)
		}
	}
}

// Servers returns the known servers, preferred first; the caller owns the
// slice.
func (m *ServerManager) Servers() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.servers)
}

// Close closes every connection; later calls fail with errManagerClosed.
func (m *ServerManager) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	for addr, c := range m.conns {
		closeRPCer(c)
		delete(m.conns, addr)
	}
	return nil
}

var errManagerClosed = errors.New("client: server manager closed")

// conn returns the RPCer of addr, dialing it on first use.
func (m *ServerManager) conn(addr string) (RPCer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errManagerClosed
	}
	c, ok := m.conns[addr]
	if !ok {
		c = m.dial(addr)
		m.conns[addr] = c
	}
	return c, nil
}

// demote moves addr to the end of the list (if it is still there).
func (m *ServerManager) demote(addr string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i := slices.Index(m.servers, addr); i >= 0 {
		m.servers = append(slices.Delete(m.servers, i, i+1), addr)
	}
}

// errCallTimeout is a server attempt that got no answer in time; it is a
// net.Error (Timeout), hence Retryable.
var errCallTimeout error = &net.OpError{Op: "call", Net: "tcp", Err: os.ErrDeadlineExceeded}

// callWithin calls conn, bounded by timeout (0: unbounded). A bounded call
// decodes into a fresh reply copied into reply on success, so a call that
// answers after the timeout writes nothing the caller sees.
func callWithin(conn RPCer, method string, args, reply any, timeout time.Duration) error {
	if timeout <= 0 {
		return conn.RPC(method, args, reply)
	}
	fresh := reflect.New(reflect.TypeOf(reply).Elem())
	done := make(chan error, 1)
	go func() { done <- conn.RPC(method, args, fresh.Interface()) }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		if err == nil {
			reflect.ValueOf(reply).Elem().Set(fresh.Elem())
		}
		return err
	case <-t.C:
		return errCallTimeout
	}
}

// mergeServers appends to list the addresses of add it lacks (and no
// empty ones).
func mergeServers(list, add []string) []string {
	for _, a := range add {
		if a != "" && !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}

func closeRPCer(c RPCer) {
	if cl, ok := c.(io.Closer); ok {
		_ = cl.Close()
	}
}

// Retryable reports whether a failed call may succeed on another server:
// the server has no leader (coded 503), or the call never reached an
// endpoint (dial failure, refused or reset connection, broken or shut
// down connection, network timeout). Errors an endpoint returned are not.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	var ce *structs.CodedError
	if errors.As(err, &ce) {
		return ce.Code == structs.ErrCodeNoLeader
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, rpc.ErrShutdown) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// learnServers hands the servers of a register or heartbeat reply to the
// RPCer when it fails over between servers (a ServerSetter); an empty list
// (an in-process or older server) changes nothing.
func (c *Client) learnServers(infos []*structs.NodeServerInfo) {
	ss, ok := c.rpc.(ServerSetter)
	if !ok || len(infos) == 0 {
		return
	}
	ss.SetServers(serverAddrs(infos))
}

// serverAddrs returns the RPC addresses of infos.
func serverAddrs(infos []*structs.NodeServerInfo) []string {
	out := make([]string, 0, len(infos))
	for _, s := range infos {
		if s != nil && s.RPCAdvertiseAddr != "" {
			out = append(out, s.RPCAdvertiseAddr)
		}
	}
	return out
}
