// Package logstream reads a task's rotated log files
// (<logdir>/<task>.<type>.<n>, n ascending) as one stream, from an offset
// counted from the start or the end, optionally following new data and new
// files as the driver writes and rotates them.
package logstream

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Origins of an offset.
const (
	OriginStart = "start"
	OriginEnd   = "end"
)

// DefaultPoll is how often a follower looks for new data.
const DefaultPoll = 50 * time.Millisecond

// ErrBadOrigin is returned for an origin other than "start" or "end".
var ErrBadOrigin = errors.New("logstream: origin must be \"start\" or \"end\"")

// Request says what to stream.
type Request struct {
	Dir     string // the alloc's log dir
	Task    string
	LogType string // "stdout" or "stderr"
	Origin  string // OriginStart or OriginEnd ("" = start)
	Offset  int64  // bytes from the origin
	Follow  bool
	// Done reports whether the task is dead (nothing more will be
	// written); a follower drains what is there and returns once it is.
	Done func() bool
	// Poll is the follower's polling period (default DefaultPoll).
	Poll time.Duration
}

// file is one rotated log file.
type file struct {
	idx  int
	path string
	size int64
}

// list returns the task's log files in index order.
func list(r *Request) ([]file, error) {
	prefix := r.Task + "." + r.LogType + "."
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		return nil, fmt.Errorf("listing logs: %w", err)
	}
	var out []file
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(name[len(prefix):])
		if err != nil || n < 0 {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // rotated away meanwhile
		}
		out = append(out, file{idx: n, path: filepath.Join(r.Dir, name), size: info.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].idx < out[j].idx })
	return out, nil
}

// position is where the reader is: a file index and a byte offset in it.
type position struct {
	idx int
	off int64
}

// startPosition turns origin+offset into a position over the files.
func startPosition(files []file, origin string, offset int64) position {
	if offset < 0 {
		offset = 0
	}
	if len(files) == 0 {
		return position{idx: 0}
	}
	if origin == OriginEnd {
		for i := len(files) - 1; i >= 0; i-- {
			if offset <= files[i].size {
				return position{idx: files[i].idx, off: files[i].size - offset}
			}
			offset -= files[i].size
		}
		return position{idx: files[0].idx}
	}
	for _, f := range files {
		if offset < f.size {
			return position{idx: f.idx, off: offset}
		}
		offset -= f.size
	}
	last := files[len(files)-1]
	return position{idx: last.idx, off: last.size}
}
