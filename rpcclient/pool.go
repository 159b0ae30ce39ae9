package rpcclient

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/rpc"
	"sync"

	"github.com/hashicorp/go-hclog"
	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

	"github.com/nomadish/nomadish/structs"
)

// errDial marks a failed dial (a connection error for failover).
var errDial = errors.New("rpcclient: dial failed")

// Pool keeps one yamux session per server address and runs each call on
// its own stream, so a blocking query never holds up other calls. A broken
// session is dropped and the next call to that address dials again. Safe
// for concurrent use; share one Pool between the Clients of an agent.
type Pool struct {
	tls    *tls.Config // nil: plaintext
	logger hclog.Logger

	mu       sync.Mutex
	sessions map[string]*session // guarded by mu
	closed   bool                // guarded by mu
}

// maxIdleStreams bounds the finished streams a session keeps for reuse.
const maxIdleStreams = 16

// session is one address's session; ready is closed once the dial ended
// (sess or err set).
type session struct {
	ready chan struct{}
	sess  *yamux.Session
	conn  *causeConn // what sess runs on, to tell why it ended
	err   error

	mu   sync.Mutex
	idle []*Codec // guarded by mu: streams with no call in flight
}

// codec returns an idle stream's codec or one on a new stream.
func (s *session) codec() (*Codec, error) {
	s.mu.Lock()
	if n := len(s.idle); n > 0 {
		c := s.idle[n-1]
		s.idle = s.idle[:n-1]
		s.mu.Unlock()
		return c, nil
	}
	s.mu.Unlock()
	stream, err := s.sess.OpenStream()
	if err != nil {
		return nil, err
	}
	return NewCodec(stream), nil
}

// release keeps c for the next call, or closes it when enough are idle.
func (s *session) release(c *Codec) {
	s.mu.Lock()
	if len(s.idle) < maxIdleStreams {
		s.idle = append(s.idle, c)
		c = nil
	}
	s.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// NewPool returns an empty pool dialing with tlsCfg (nil: plaintext).
func NewPool(tlsCfg *tls.Config, logger hclog.Logger) *Pool {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Pool{tls: tlsCfg, logger: logger.Named("rpcpool"), sessions: map[string]*session{}}
}

// RPC calls method on the server at addr on a stream of addr's session
// that no other call uses (an idle one, else a new one), so concurrent and
// blocking calls never wait for each other. Errors the endpoint returned
// are rebuilt with structs.DecodeRPCError; a broken connection gives an
// error for which the caller may try elsewhere (the session is then
// dropped).
func (p *Pool) RPC(addr, method string, args, reply any) error {
	s, err := p.session(addr)
	if err != nil {
		return err
	}
	codec, err := s.codec()
	if err != nil {
		p.drop(addr, s.sess)
		if cause := s.conn.cause(); cause != nil {
			return fmt.Errorf("opening a stream to %s: %w (the connection failed: %w)", addr, err, cause)
		}
		return fmt.Errorf("opening a stream to %s: %w", addr, err)
	}
	err = msgpackrpc.CallWithCodec(codec, method, args, reply)
	var se rpc.ServerError
	if err == nil || (errors.As(err, &se) && !endsConversation(se)) {
		s.release(codec) // the conversation is in step: reuse the stream
	} else {
		codec.Close()
	}
	if errors.As(err, &se) {
		return structs.DecodeRPCError(string(se))
	}
	if err != nil && s.sess.IsClosed() {
		p.drop(addr, s.sess)
		if cause := s.conn.cause(); cause != nil {
			err = fmt.Errorf("%w (the connection failed: %w)", err, cause)
		}
	}
	return err
}

// endsConversation reports whether the server closes the stream after
// answering with se: it refuses a request without reading its whole body
// (over its byte budget, 413; a snapshot restore while another is read,
// 429), so the stream is out of step and must not carry another call.
func endsConversation(se rpc.ServerError) bool {
	var ce *structs.CodedError
	if !errors.As(structs.DecodeRPCError(string(se)), &ce) {
		return false
	}
	return ce.Code == structs.ErrCodeTooLarge || ce.Code == structs.ErrCodeTooManyRequests
}

// session returns addr's live session, dialing it if needed; concurrent
// callers share one dial.
func (p *Pool) session(addr string) (*session, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	s, ok := p.sessions[addr]
	if ok {
		p.mu.Unlock()
		<-s.ready
		if s.err == nil && !s.sess.IsClosed() {
			return s, nil
		}
		p.forget(addr, s)
		if s.err != nil {
			return nil, s.err
		}
		return p.session(addr)
	}
	s = &session{ready: make(chan struct{})}
	p.sessions[addr] = s
	p.mu.Unlock()

	s.sess, s.conn, s.err = p.dial(addr)
	p.mu.Lock()
	if s.err == nil && p.closed { // Close ran during the dial
		s.sess.Close()
		s.sess, s.err = nil, ErrClosed
	}
	p.mu.Unlock()
	close(s.ready)
	if s.err != nil {
		p.forget(addr, s)
		return nil, s.err
	}
	return s, nil
}

func (p *Pool) dial(addr string) (*yamux.Session, *causeConn, error) {
	raw, err := Dial(addr, RPCMultiplex, p.tls, DialTimeout)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errDial, err)
	}
	conn := &causeConn{Conn: raw}
	sess, err := yamux.Client(conn, YamuxConfig(p.logger))
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("%w: starting yamux with %s: %w", errDial, addr, err)
	}
	p.logger.Debug("connected", "server", addr, "tls", p.tls != nil)
	return sess, conn, nil
}

// causeConn remembers the first read error of a connection: with TLS 1.3
// a server refusing the client's certificate says so only on the first
// read ("remote error: tls: bad certificate"), which yamux's reader gets
// and does not pass on.
type causeConn struct {
	net.Conn
	mu  sync.Mutex
	err error // guarded by mu: the first read error
}

func (c *causeConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	return n, err
}

// cause returns the first read error (nil if none).
func (c *causeConn) cause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// forget removes s from the table if it is still addr's entry.
func (p *Pool) forget(addr string, s *session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions[addr] == s {
		delete(p.sessions, addr)
	}
}

// drop closes sess and forgets it, so the next call to addr redials.
func (p *Pool) drop(addr string, sess *yamux.Session) {
	p.mu.Lock()
	if s := p.sessions[addr]; s != nil && s.sess == sess {
		delete(p.sessions, addr)
	}
	p.mu.Unlock()
	sess.Close()
}

// Close closes every session; later calls fail with ErrClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	sessions := p.sessions
	p.sessions, p.closed = map[string]*session{}, true
	p.mu.Unlock()
	for _, s := range sessions {
		<-s.ready
		if s.sess != nil {
			s.sess.Close()
		}
	}
	return nil
}
