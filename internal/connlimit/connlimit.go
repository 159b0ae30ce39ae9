// Package connlimit counts what each client address holds open
// (connections, blocking queries) and refuses more than a limit per
// address; the agent's HTTP server and the server's RPC listener each keep
// their own Limiter, so a flood of one does not use up the other's budget.
package connlimit

import (
	"errors"
	"net"
	"sync"
)

// ErrPerClientLimit is returned by Acquire when the address already holds
// its limit.
var ErrPerClientLimit = errors.New("connlimit: too many concurrent connections from this address")

// Limiter counts slots per client IP (the port is ignored). The zero value
// and a nil *Limiter are unlimited. Safe for concurrent use.
type Limiter struct {
	max int // 0: unlimited

	mu sync.Mutex
	n  map[string]int // guarded by mu; IP -> slots held (absent when 0)
}

// New returns a Limiter allowing max slots per IP (max <= 0: unlimited,
// though slots are still counted).
func New(max int) *Limiter {
	return &Limiter{max: max, n: map[string]int{}}
}

// Max returns the per-address limit (0: unlimited).
func (l *Limiter) Max() int {
	if l == nil {
		return 0
	}
	return max(l.max, 0)
}

// Acquire takes one slot for addr's IP. It returns ErrPerClientLimit when
// the IP holds Max slots already; otherwise a release function that gives
// the slot back (calling it again does nothing).
func (l *Limiter) Acquire(addr net.Addr) (release func(), err error) {
	return l.AcquireIP(IP(addr))
}

// AcquireIP is Acquire for an IP already extracted (an http.Request's
// RemoteAddr through HostIP).
func (l *Limiter) AcquireIP(ip string) (release func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.n[ip] >= l.max {
		return nil, ErrPerClientLimit
	}
	if l.n == nil {
		l.n = map[string]int{}
	}
	l.n[ip]++
	var once sync.Once
	return func() { once.Do(func() { l.release(ip) }) }, nil
}

func (l *Limiter) release(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[ip]--; l.n[ip] <= 0 {
		delete(l.n, ip)
	}
}

// Held returns the slots addr's IP holds.
func (l *Limiter) Held(addr net.Addr) int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[IP(addr)]
}

// IP returns the IP of a TCP (or any "host:port") address, the whole
// string when it has no port.
func IP(addr net.Addr) string {
	if addr == nil {
		return ""
	}
	if t, ok := addr.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	s := addr.String()
	if host, _, err := net.SplitHostPort(s); err == nil {
		return host
	}
	return s
}

// HostIP returns the host of a "host:port" string (the whole string when
// it has no port), as IP does for a net.Addr.
func HostIP(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return hostport
}

// Conn is a net.Conn whose first Close also releases its Limiter slot.
type Conn struct {
	net.Conn
	release func()
}

// Wrap returns c releasing its slot on Close.
func Wrap(c net.Conn, release func()) *Conn { return &Conn{Conn: c, release: release} }

// Close closes the connection and releases its slot.
func (c *Conn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
