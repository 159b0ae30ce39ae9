package docker

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/nomadish/nomadish/drivers/logging"
)

// resumeWindow is how far around the last log write a recovered task's
// log copy looks for lines the previous plugin already wrote.
const resumeWindow = 2 * time.Second

// startLogs copies the container's stdout/stderr into the task's rotated
// log files until the container stops or stopLogs is called. A fresh task
// copies everything; a recovered one (resume) starts shortly before the
// last write to its log files and drops the lines already there.
func (t *task) startLogs(resume bool) {
	ctx, cancel := context.WithCancel(context.Background())
	t.logsDone, t.stopLogs = make(chan struct{}), cancel
	stdout, errOut := t.logWriter(t.cfg.StdoutPath, resume)
	stderr, errErr := t.logWriter(t.cfg.StderrPath, resume)
	if err := errors.Join(errOut, errErr); err != nil {
		t.logger.Warn("container logs not captured", "task", t.cfg.ID, "error", err)
	}
	opts := container.LogsOptions{ShowStdout: true, ShowStderr: true, Follow: true, Timestamps: true}
	if since := min(stdout.since(), stderr.since()); resume && since > 0 {
		opts.Since = strconv.FormatInt(since, 10)
	}
	go func() {
		defer close(t.logsDone)
		defer stdout.Close()
		defer stderr.Close()
		rc, err := t.cli.ContainerLogs(ctx, t.state.ContainerID, opts)
		if err != nil {
			t.logger.Warn("reading container logs", "task", t.cfg.ID, "error", err)
			return
		}
		defer rc.Close()
		if _, err := stdcopy.StdCopy(stdout, stderr, rc); err != nil && ctx.Err() == nil {
			t.logger.Warn("copying container logs", "task", t.cfg.ID, "error", err)
		}
	}()
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// logWriter opens the rotated log files at path (discard when empty).
func (t *task) logWriter(path string, resume bool) (*stampWriter, error) {
	if path == "" {
		return &stampWriter{w: nopWriteCloser{io.Discard}}, nil
	}
	files, maxBytes := t.cfg.LogLimits()
	sw := &stampWriter{}
	if resume {
		sw.tail, sw.until = lastLogWrite(path)
	}
	r, err := logging.NewRotator(path, files, maxBytes)
	if err != nil {
		sw.w = nopWriteCloser{io.Discard}
		return sw, err
	}
	sw.w = r
	return sw, nil
}

// stampWriter receives one engine log message per Write, prefixed with its
// RFC 3339 timestamp and a space, and writes the message without it. While
// resuming (until set), messages stamped up to until that are found, in
// order, in tail (the end of the log file), or stamped well before the last
// write, were written by the previous plugin and are dropped. Used by one log copy goroutine.
type stampWriter struct {
	w     io.WriteCloser
	until time.Time
	tail  []byte
}

func (s *stampWriter) Write(p []byte) (int, error) {
	msg := p
	if ts, rest, ok := bytes.Cut(p, []byte(" ")); ok {
		if at, err := time.Parse(time.RFC3339Nano, string(ts)); err == nil {
			msg = rest
			switch {
			case s.until.IsZero():
			case at.After(s.until):
				s.until, s.tail = time.Time{}, nil
			case at.Before(s.until.Add(-2 * resumeWindow)):
				return len(p), nil // long before the last write: written already
			}
		}
	}
	if !s.until.IsZero() {
		if i := bytes.Index(s.tail, msg); i >= 0 && len(msg) > 0 {
			s.tail = s.tail[i+len(msg):]
			return len(p), nil
		}
	}
	if _, err := s.w.Write(msg); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (s *stampWriter) Close() error { return s.w.Close() }

// since is the Unix second the log copy of a resumed task starts from (0:
// from the beginning).
func (s *stampWriter) since() int64 {
	if s.until.IsZero() {
		return 0
	}
	return s.until.Add(-2 * resumeWindow).Unix()
}

// lastLogWrite returns the last 64 KiB of the newest log file at path and
// its modification time plus resumeWindow (zero when there is none).
func lastLogWrite(path string) ([]byte, time.Time) {
	matches, _ := filepath.Glob(path + ".*")
	sort.Slice(matches, func(i, j int) bool { return logIndex(matches[i], path) < logIndex(matches[j], path) })
	if len(matches) == 0 {
		return nil, time.Time{}
	}
	newest := matches[len(matches)-1]
	st, err := os.Stat(newest)
	if err != nil {
		return nil, time.Time{}
	}
	f, err := os.Open(newest)
	if err != nil {
		return nil, time.Time{}
	}
	defer f.Close()
	const tailMax = 64 << 10
	off := max(0, st.Size()-tailMax)
	tail := make([]byte, st.Size()-off)
	n, _ := f.ReadAt(tail, off)
	return tail[:n], st.ModTime().Add(resumeWindow)
}

func logIndex(file, base string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(file, base+"."))
	if err != nil {
		return -1
	}
	return n
}
