package logging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// FIFOPath is the FIFO a task writes one stream to, beside its log files:
// <dir>/.<name>.fifo for the log base path <dir>/<name>.
func FIFOPath(base string) string {
	return filepath.Join(filepath.Dir(base), "."+filepath.Base(base)+".fifo")
}

// OpenTaskEnd creates the FIFO (replacing a stale one) and opens the end the
// task writes to. It is opened read-write on purpose: the task then always
// holds a reader itself, so it never gets SIGPIPE while no plugin is reading
// (between a plugin crash and RecoverTask); instead the kernel buffers up to
// 64 KiB and then the task blocks on write until a new Pump attaches. The
// caller passes the file to the child and closes its own copy after start.
func OpenTaskEnd(fifo string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		return nil, fmt.Errorf("logging: creating log dir: %w", err)
	}
	_ = os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		return nil, fmt.Errorf("logging: creating fifo %s: %w", fifo, err)
	}
	return openFIFO(fifo, os.O_RDWR)
}

// Pump copies a FIFO into a writer until every writer of the FIFO has
// closed it (the task and its children exited) or Close is called.
// One goroutine, started by NewPump, owns the read end.
type Pump struct {
	r       *os.File
	w       io.WriteCloser
	syncReq chan chan struct{} // Sync requests; answered after a drain
	done    chan struct{}      // closed when the pump stopped and w is closed
}

// NewPump opens the read end of fifo and starts copying into w. w is closed
// when the pump stops.
func NewPump(fifo string, w io.WriteCloser) (*Pump, error) {
	r, err := openFIFO(fifo, os.O_RDONLY|syscall.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	p := &Pump{r: r, w: w, syncReq: make(chan chan struct{}, 64), done: make(chan struct{})}
	go p.run()
	return p, nil
}

func (p *Pump) run() {
	defer close(p.done)
	defer p.w.Close()
	defer p.r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := p.r.Read(buf)
		if n > 0 {
			_, _ = p.w.Write(buf[:n])
		}
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded):
			// A Sync kicked us: clear the deadline, count the requests
			// made so far, read everything buffered now, answer them.
			_ = p.r.SetReadDeadline(time.Time{})
			pending := len(p.syncReq)
			eof := p.drain(buf)
			for range pending {
				close(<-p.syncReq)
			}
			if eof {
				return
			}
		default:
			return // io.EOF (no writers left) or closed
		}
	}
}

// drain reads without blocking until the FIFO is empty; true at EOF.
func (p *Pump) drain(buf []byte) bool {
	rc, err := p.r.SyscallConn()
	if err != nil {
		return true
	}
	for {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), buf)
			return true
		}); err != nil {
			return true
		}
		if n > 0 {
			_, _ = p.w.Write(buf[:n])
			continue
		}
		if rerr == syscall.EINTR {
			continue
		}
		return rerr == nil // n == 0 without error is EOF; EAGAIN is empty
	}
}

// Sync returns once everything written to the FIFO before the call is in
// w (or the pump stopped). The driver calls it after the task exited, so
// WaitTask reports the exit only when the logs are complete, even if a
// background child still holds the FIFO open.
func (p *Pump) Sync(ctx context.Context) error {
	reply := make(chan struct{})
	select {
	case p.syncReq <- reply:
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	_ = p.r.SetReadDeadline(time.Unix(1, 0))
	select {
	case <-reply:
		return nil
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done is closed when the pump has stopped.
func (p *Pump) Done() <-chan struct{} { return p.done }

// Close stops the pump and waits for it.
func (p *Pump) Close() {
	_ = p.r.Close()
	<-p.done
}

// PumpToFiles starts a pump from fifo into rotated files at path (at most
// files of maxBytes each): the log path of exec-style and qemu tasks.
func PumpToFiles(fifo, path string, files int, maxBytes int64) (*Pump, error) {
	rot, err := NewRotator(path, files, maxBytes)
	if err != nil {
		return nil, err
	}
	p, err := NewPump(fifo, rot)
	if err != nil {
		rot.Close()
		return nil, err
	}
	return p, nil
}
