package logstream

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// Stream writes the requested log to w. Without Follow it returns once
// everything present has been written. With Follow it keeps writing new
// data until ctx ends (returning nil) or Done reports the task dead and all
// is written. Errors are from w or from reading the files.
func Stream(ctx context.Context, r Request, w io.Writer) error {
	switch r.Origin {
	case "", OriginStart, OriginEnd:
	default:
		return ErrBadOrigin
	}
	poll := r.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	files, err := list(&r)
	if err != nil {
		return err
	}
	pos := startPosition(files, r.Origin, r.Offset)
	var timer *time.Timer
	for {
		done := r.Done != nil && r.Done()
		if pos, err = drain(&r, pos, w); err != nil {
			return err
		}
		if !r.Follow || done {
			return nil
		}
		if timer == nil {
			timer = time.NewTimer(poll)
			defer timer.Stop()
		} else {
			timer.Reset(poll)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
	}
}

// drain writes everything from pos on, moving to later files as it goes,
// and returns the new position.
func drain(r *Request, pos position, w io.Writer) (position, error) {
	for {
		files, err := list(r)
		if err != nil {
			return pos, err
		}
		cur, next := -1, -1
		for i, f := range files {
			if f.idx == pos.idx {
				cur = i
			}
			if f.idx > pos.idx && next < 0 {
				next = i
			}
		}
		if cur >= 0 {
			n, err := copyFrom(files[cur].path, pos.off, w)
			pos.off += n
			if err != nil {
				return pos, err
			}
		}
		if next < 0 {
			return pos, nil
		}
		// A later file existed when we listed: the current one was
		// complete then (the driver writes only the newest), and we have
		// read it all. Move on.
		pos = position{idx: files[next].idx}
	}
}

// copyFrom copies the file from off to its current end.
func copyFrom(path string, off int64, w io.Writer) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil // rotated away
		}
		return 0, fmt.Errorf("opening log: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return 0, fmt.Errorf("seeking log: %w", err)
	}
	n, err := io.Copy(w, f)
	if err != nil {
		return n, fmt.Errorf("writing log: %w", err)
	}
	return n, nil
}
