// Package qmp is a small client of the QEMU Machine Protocol: JSON objects,
// one per line, over a unix socket. The server greets, the client enables
// commands with qmp_capabilities, then sends {"execute": ..., "id": ...}
// and gets {"return": ...} or {"error": ...} back with the same id; events
// ({"event": ...}) may arrive at any time, between replies.
package qmp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Sentinels.
var (
	// ErrClosed is returned by calls on a closed connection, or when the
	// server hung up before replying.
	ErrClosed = errors.New("qmp: connection closed")
	// ErrProtocol wraps a malformed or unexpected message.
	ErrProtocol = errors.New("qmp: protocol error")
)

// eventBuffer is how many events are kept until read; more are dropped.
const eventBuffer = 64

// Error is a command's {"error": {"class", "desc"}} reply.
type Error struct {
	Class string `json:"class"`
	Desc  string `json:"desc"`
}

func (e *Error) Error() string { return fmt.Sprintf("qmp: %s: %s", e.Class, e.Desc) }

// Event is an asynchronous notification such as POWERDOWN or SHUTDOWN.
type Event struct {
	Name      string          `json:"event"`
	Data      json.RawMessage `json:"data,omitempty"`
	Timestamp struct {
		Seconds      int64 `json:"seconds"`
		Microseconds int64 `json:"microseconds"`
	} `json:"timestamp"`
}

// Version is the server's version from its greeting.
type Version struct {
	Major, Minor, Micro int
	Package             string
}

// message is any line the server sends.
type message struct {
	QMP *struct {
		Version struct {
			QEMU    struct{ Major, Minor, Micro int } `json:"qemu"`
			Package string                            `json:"package"`
		} `json:"version"`
	} `json:"QMP,omitempty"`
	Return json.RawMessage `json:"return,omitempty"`
	Error  *Error          `json:"error,omitempty"`
	Event  string          `json:"event,omitempty"`
	ID     json.RawMessage `json:"id,omitempty"`
}

// Conn is a negotiated QMP connection. Execute is safe for concurrent use;
// one goroutine (started by Dial) owns reading.
type Conn struct {
	conn    net.Conn
	version Version
	events  chan Event
	nextID  atomic.Uint64
	done    chan struct{} // closed when the reader stops

	mu      sync.Mutex // guards writes, pending and readErr
	pending map[string]chan message
	readErr error
}

// Dial connects to the QMP socket at path, reads the greeting and enables
// commands. ctx bounds the whole handshake.
func Dial(ctx context.Context, path string) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("qmp: connecting to %s: %w", path, err)
	}
	return Handshake(ctx, nc)
}

// Handshake runs the greeting and qmp_capabilities over an open
// connection, which the returned Conn then owns (closed on error).
func Handshake(ctx context.Context, nc net.Conn) (*Conn, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.Close() })
	defer stop()
	r := bufio.NewReader(nc)
	line, err := r.ReadBytes('\n')
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("qmp: reading greeting: %w", err)
	}
	var g message
	if err := json.Unmarshal(line, &g); err != nil || g.QMP == nil {
		nc.Close()
		return nil, fmt.Errorf("%w: greeting %q", ErrProtocol, line)
	}
	c := &Conn{conn: nc, events: make(chan Event, eventBuffer), done: make(chan struct{}), pending: map[string]chan message{}}
	v := g.QMP.Version
	c.version = Version{Major: v.QEMU.Major, Minor: v.QEMU.Minor, Micro: v.QEMU.Micro, Package: v.Package}
	go c.read(r)
	if _, err := c.Execute(ctx, "qmp_capabilities", nil); err != nil {
		c.Close()
		return nil, fmt.Errorf("qmp: negotiating capabilities: %w", err)
	}
	_ = nc.SetDeadline(time.Time{})
	return c, nil
}

// Version is the server's version, from its greeting.
func (c *Conn) Version() Version { return c.version }

// Events delivers events in order as they arrive; it is closed when the
// connection ends. Events beyond a buffer of 64 unread ones are dropped.
func (c *Conn) Events() <-chan Event { return c.events }

// Done is closed when the connection has ended (Close, or the server hung
// up: QEMU exited).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Execute runs command with args (nil for none) and returns the "return"
// value. A command the server refused comes back as *Error.
func (c *Conn) Execute(ctx context.Context, command string, args any) (json.RawMessage, error) {
	id := fmt.Sprintf("nomadish-%d", c.nextID.Add(1))
	req := map[string]any{"execute": command, "id": id}
	if args != nil {
		req["arguments"] = args
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("qmp: encoding %s: %w", command, err)
	}
	reply := make(chan message, 1)
	key := id
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return nil, c.readErr
	}
	c.pending[key] = reply
	_, err = c.conn.Write(append(b, '\n'))
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}()
	if err != nil {
		return nil, fmt.Errorf("qmp: sending %s: %w", command, err)
	}
	var m message
	select {
	case m = <-reply:
	case <-c.done:
		select {
		case m = <-reply: // the reply came just before the hang-up
		default:
			return nil, fmt.Errorf("qmp: %s: %w", command, ErrClosed)
		}
	case <-ctx.Done():
		return nil, fmt.Errorf("qmp: %s: %w", command, ctx.Err())
	}
	if m.Error != nil {
		return nil, m.Error
	}
	return m.Return, nil
}

// read dispatches replies to their callers and events to Events, until the
// connection ends.
func (c *Conn) read(r *bufio.Reader) {
	defer close(c.events)
	defer close(c.done)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			c.setReadErr(ErrClosed)
			return
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			c.setReadErr(fmt.Errorf("%w: %q", ErrProtocol, line))
			_ = c.conn.Close()
			return
		}
		if m.Event != "" {
			var ev Event
			_ = json.Unmarshal(line, &ev) // same bytes decoded once already
			select {
			case c.events <- ev:
			default: // nobody reading: drop
			}
			continue
		}
		if ch := c.replyTo(m.ID); ch != nil {
			select {
			case ch <- m: // buffered for the one reply expected
			default:
			}
		}
	}
}

// replyTo finds the caller waiting for the reply with this id. A reply
// without an id (QEMU sends one for a request it could not parse) goes to
// the only caller waiting, if there is exactly one.
func (c *Conn) replyTo(rawID json.RawMessage) chan message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var id string
	if len(rawID) == 0 && len(c.pending) == 1 {
		for _, ch := range c.pending {
			return ch
		}
	}
	if json.Unmarshal(rawID, &id) != nil {
		return nil
	}
	ch := c.pending[id]
	delete(c.pending, id)
	return ch
}

func (c *Conn) setReadErr(err error) {
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
}

// Close ends the connection and waits for the reader.
func (c *Conn) Close() error {
	err := c.conn.Close()
	<-c.done
	return err
}
