package logstream

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestStreamOffsets(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "web.stdout.3", "abc")
	write(t, dir, "web.stdout.4", "defg")
	write(t, dir, "web.stdout.10", "hi")
	write(t, dir, "web.stderr.0", "ERR")
	write(t, dir, "other.stdout.0", "zzz")
	cases := []struct {
		typ, origin string
		off         int64
		want        string
	}{
		{"stdout", OriginStart, 0, "abcdefghi"},
		{"stdout", "", 2, "cdefghi"},
		{"stdout", OriginStart, 3, "defghi"},
		{"stdout", OriginStart, 100, ""},
		{"stdout", OriginEnd, 0, ""},
		{"stdout", OriginEnd, 3, "ghi"},
		{"stdout", OriginEnd, 6, "defghi"},
		{"stdout", OriginEnd, 100, "abcdefghi"},
		{"stderr", OriginStart, 0, "ERR"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		err := Stream(context.Background(), Request{Dir: dir, Task: "web", LogType: c.typ, Origin: c.origin, Offset: c.off}, &buf)
		if err != nil || buf.String() != c.want {
			t.Errorf("%s %s %d: got %q (%v), want %q", c.typ, c.origin, c.off, buf.String(), err, c.want)
		}
	}
	if err := Stream(context.Background(), Request{Dir: dir, Task: "web", LogType: "stdout", Origin: "middle"}, &bytes.Buffer{}); err != ErrBadOrigin {
		t.Errorf("bad origin: %v", err)
	}
}

// chanWriter hands each write to the test.
type chanWriter struct{ ch chan string }

func (w chanWriter) Write(p []byte) (int, error) { w.ch <- string(p); return len(p), nil }

func TestStreamFollowAcrossRotation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "web.stdout.0", "one ")
		var dead atomic.Bool
		w := chanWriter{ch: make(chan string, 16)}
		var wg sync.WaitGroup
		var err error
		wg.Go(func() {
			err = Stream(t.Context(), Request{Dir: dir, Task: "web", LogType: "stdout", Follow: true, Done: dead.Load}, w)
		})
		if got := <-w.ch; got != "one " {
			t.Fatalf("got %q", got)
		}
		write(t, dir, "web.stdout.0", "two ")
		if got := <-w.ch; got != "two " {
			t.Fatalf("got %q", got)
		}
		// Rotation: the driver finishes .0 and opens .1.
		write(t, dir, "web.stdout.0", "three ")
		write(t, dir, "web.stdout.1", "four ")
		if got := <-w.ch + <-w.ch; got != "three four " {
			t.Fatalf("got %q", got)
		}
		write(t, dir, "web.stdout.1", "last")
		dead.Store(true)
		wg.Wait()
		close(w.ch)
		var rest string
		for s := range w.ch {
			rest += s
		}
		if err != nil || rest != "last" {
			t.Fatalf("rest %q err %v", rest, err)
		}
	})
}

func TestStreamFollowStopsOnContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		var buf bytes.Buffer
		if err := Stream(ctx, Request{Dir: dir, Task: "web", LogType: "stdout", Follow: true}, &buf); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) != time.Second || buf.Len() != 0 {
			t.Fatalf("returned after %v with %q", time.Since(start), buf.String())
		}
	})
}
