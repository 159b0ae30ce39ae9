package checks

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// maxOutput bounds the output a result keeps (Consul keeps 4 KiB).
const maxOutput = 4096

// Default interval and timeout of a check that names none.
const (
	DefaultInterval = 10 * time.Second
	DefaultTimeout  = 5 * time.Second
)

// Result is one run of a check: a raw status (passing, warning or
// critical), what the check saw, and the HTTP status code when there is one.
type Result struct {
	Status     string
	Output     string
	StatusCode int
}

// Checker runs a check once. Check returns by ctx's deadline (the
// check's timeout) and is called from one goroutine at a time.
type Checker interface {
	Check(ctx context.Context) Result
}

// Execer runs a command inside a running task (a script check):
// taskrunner.TaskRunner satisfies it through its driver's exec.
type Execer interface {
	Exec(ctx context.Context, command []string, output *LimitedBuffer) (exitCode int, err error)
}

// Target is where a network check connects: an address and a port.
type Target struct {
	Address string
	Port    int
}

func (t Target) hostPort() string { return net.JoinHostPort(t.Address, strconv.Itoa(t.Port)) }

// New returns the checker of c against target; exec runs a script check's
// command (nil: script checks fail with a clear output). Errors: an
// unknown check type.
func New(c *structs.ServiceCheck, target Target, exec Execer) (Checker, error) {
	switch c.Type {
	case structs.ServiceCheckHTTP:
		return newHTTP(c, target), nil
	case structs.ServiceCheckTCP:
		return &tcpCheck{addr: target.hostPort()}, nil
	case structs.ServiceCheckGRPC:
		return newGRPC(c, target), nil
	case structs.ServiceCheckScript:
		return &scriptCheck{command: append([]string{c.Command}, c.Args...), exec: exec}, nil
	}
	return nil, fmt.Errorf("check %q: unknown type %q", c.Name, c.Type)
}

// LimitedBuffer keeps the first 4 KiB written to it; it is safe for
// concurrent writers (a command's stdout and stderr). The zero value is
// ready.
type LimitedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

// Write keeps what fits and reports all of p written.
func (b *LimitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := maxOutput - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// String returns what was kept.
func (b *LimitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

func truncate(s string) string {
	if len(s) > maxOutput {
		return s[:maxOutput]
	}
	return s
}
