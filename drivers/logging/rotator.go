package logging

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Rotator is an io.Writer over numbered files <base>.<n>. A file holds at
// most maxBytes; after it fills, the next index starts and the oldest files
// beyond maxFiles are removed. Writes go straight to the file (no buffer),
// so what Write accepted is on disk for readers. Safe for concurrent use.
type Rotator struct {
	base     string
	dir      *os.File // the log dir, opened once (safeopen.go)
	name     string   // base's file name
	maxFiles int
	maxBytes int64

	mu   sync.Mutex // guards the fields below
	idx  int
	f    *os.File
	size int64
}

// NewRotator opens the rotator, continuing in the newest existing file
// (a recovered task appends to where the previous plugin stopped).
func NewRotator(base string, maxFiles int, maxBytes int64) (*Rotator, error) {
	if maxFiles < 1 {
		maxFiles = 1
	}
	if maxBytes < 1 {
		return nil, fmt.Errorf("logging: max file size must be positive, got %d", maxBytes)
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return nil, fmt.Errorf("logging: creating log dir: %w", err)
	}
	dir, err := openDir(filepath.Dir(base))
	if err != nil {
		return nil, err
	}
	r := &Rotator{base: base, dir: dir, name: filepath.Base(base), maxFiles: maxFiles, maxBytes: maxBytes}
	idx, err := r.indexes()
	if err == nil && len(idx) > 0 {
		r.idx = idx[len(idx)-1]
	}
	if err == nil {
		err = r.open()
	}
	if err != nil {
		dir.Close()
		return nil, err
	}
	return r, nil
}

// indexes lists the existing file indexes, ascending.
func (r *Rotator) indexes() ([]int, error) {
	if _, err := r.dir.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("logging: listing %s: %w", r.base, err)
	}
	names, err := r.dir.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("logging: listing %s: %w", r.base, err)
	}
	var out []int
	for _, m := range names {
		rest, ok := strings.CutPrefix(m, r.name+".")
		n, err := strconv.Atoi(rest)
		if ok && err == nil && n >= 0 {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

func (r *Rotator) open() error {
	f, err := openLogFile(r.dir, r.name+"."+strconv.Itoa(r.idx))
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("logging: stat log file: %w", err)
	}
	r.f, r.size = f, st.Size()
	return nil
}

// Write writes p, rotating as files fill.
func (r *Rotator) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, os.ErrClosed
	}
	written := 0
	for len(p) > 0 {
		if r.size >= r.maxBytes {
			if err := r.rotate(); err != nil {
				return written, err
			}
		}
		chunk := p
		if room := r.maxBytes - r.size; int64(len(chunk)) > room {
			chunk = chunk[:room]
		}
		n, err := r.f.Write(chunk)
		written += n
		r.size += int64(n)
		if err != nil {
			return written, fmt.Errorf("logging: writing log: %w", err)
		}
		p = p[n:]
	}
	return written, nil
}

// rotate closes the current file, opens the next one and purges old ones.
// Caller holds mu.
func (r *Rotator) rotate() error {
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("logging: closing log file: %w", err)
	}
	r.idx++
	if err := r.open(); err != nil {
		r.f = nil
		return err
	}
	idx, err := r.indexes()
	if err != nil {
		return err
	}
	for len(idx) > r.maxFiles {
		_ = syscall.Unlinkat(int(r.dir.Fd()), r.name+"."+strconv.Itoa(idx[0]))
		idx = idx[1:]
	}
	return nil
}

// Close closes the current file and the log dir.
func (r *Rotator) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	if r.f != nil {
		err = r.f.Close()
		r.f = nil
	}
	if r.dir != nil {
		r.dir.Close()
		r.dir = nil
	}
	return err
}
