package virt

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nomadish/nomadish/drivers/logging"
)

// consolePoll is how often the console copier looks for new output.
const consolePoll = 200 * time.Millisecond

// consoleMax is how large the console file may grow before the copier,
// having copied all of it, empties it (QEMU writes it in append mode, so
// its next write lands at the new end).
const consoleMax = 8 << 20

// consoleCopier copies the serial console file libvirt writes (the domain's
// <serial type='file'>) into the task's rotated stdout log. It keeps how far
// it has copied in <console>.offset, so a copier started after a plugin
// restart resumes where the last one stopped. One goroutine owns it.
type consoleCopier struct {
	src    string
	max    int64 // consoleMax; tests lower it
	cancel context.CancelFunc
	done   chan struct{}
}

// startConsole starts copying src into the rotated log at dst (base path,
// see base.TaskConfig.StdoutPath). dst "" discards the console.
func startConsole(src, dst string, files int, maxBytes int64) (*consoleCopier, error) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &consoleCopier{src: src, max: consoleMax, cancel: cancel, done: make(chan struct{})}
	if dst == "" {
		close(c.done)
		return c, nil
	}
	rot, err := logging.NewRotator(dst, files, maxBytes)
	if err != nil {
		cancel()
		return nil, err
	}
	go c.run(ctx, rot)
	return c, nil
}

func (c *consoleCopier) run(ctx context.Context, w io.WriteCloser) {
	defer close(c.done)
	defer w.Close()
	off := readOffset(c.src + ".offset")
	t := time.NewTicker(consolePoll)
	defer t.Stop()
	for {
		off = c.copyFrom(off, w)
		select {
		case <-ctx.Done():
			c.copyFrom(off, w) // what the guest wrote last
			return
		case <-t.C:
		}
	}
}

// copyFrom copies src from off to its end into w and returns the new
// offset, recorded beside src.
func (c *consoleCopier) copyFrom(off int64, w io.Writer) int64 {
	f, err := os.Open(c.src)
	if err != nil {
		return off
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() < off {
		off = 0 // the file was truncated (a new domain start)
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return off
	}
	n, err := io.Copy(w, f)
	off += n
	if err == nil && off > c.max {
		if st, serr := f.Stat(); serr == nil && st.Size() == off && os.Truncate(c.src, 0) == nil {
			off = 0
		}
	}
	if n > 0 || off == 0 {
		_ = os.WriteFile(c.src+".offset", []byte(strconv.FormatInt(off, 10)), 0o600)
	}
	return off
}

// stop copies what is left and stops; it returns when the copier has.
func (c *consoleCopier) stop() {
	c.cancel()
	<-c.done
}

func readOffset(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
