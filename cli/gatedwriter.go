package cli

import (
	"io"
	"sync"
)

// gatedWriter holds what is written to it until Flush, then passes writes
// through. The agent logs through one so that the lines logged while it
// starts come after the banner, as Nomad's do.
type gatedWriter struct {
	mu      sync.Mutex // guards w, buf, flushed
	w       io.Writer
	buf     [][]byte
	flushed bool
}

func newGatedWriter(w io.Writer) *gatedWriter { return &gatedWriter{w: w} }

// Write buffers p before Flush and writes it through after.
func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.flushed {
		return g.w.Write(p)
	}
	g.buf = append(g.buf, append([]byte(nil), p...))
	return len(p), nil
}

// Flush writes what was held and opens the gate.
func (g *gatedWriter) Flush() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, p := range g.buf {
		_, _ = g.w.Write(p)
	}
	g.buf, g.flushed = nil, true
}
