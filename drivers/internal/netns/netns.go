// Package netns starts processes inside a network namespace file (a
// group's namespace: /var/run/netns/<name> or /proc/<pid>/ns/net). A
// network namespace belongs to a thread, and a child is born in its
// parent thread's, so the fork happens from a locked OS thread that joined
// the namespace and goes back afterwards; a thread that cannot go back
// stays locked, and the Go runtime retires it with its goroutine.
package netns

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// ErrNotNetNS is returned for a path that is not a network namespace.
var ErrNotNetNS = errors.New("netns: not a network namespace")

// Enter moves the calling thread, which the caller has locked
// (runtime.LockOSThread), into the network namespace at path. restore
// moves it back and reports whether that worked; the caller unlocks the
// thread only then.
func Enter(path string) (restore func() bool, err error) {
	noop := func() bool { return true }
	if path == "" {
		return noop, nil
	}
	target, err := open(path)
	if err != nil {
		return noop, err
	}
	defer target.Close()
	orig, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		return noop, fmt.Errorf("netns: opening the thread's namespace: %w", err)
	}
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		orig.Close()
		return noop, fmt.Errorf("netns: entering %s: %w", path, err)
	}
	return func() bool {
		defer orig.Close()
		return unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET) == nil
	}, nil
}

// open opens path and checks it is a network namespace.
func open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("netns: %w", err)
	}
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("netns: %s: %w", path, err)
	}
	if st.Type != unix.NSFS_MAGIC {
		f.Close()
		return nil, fmt.Errorf("%w: %s", ErrNotNetNS, path)
	}
	return f, nil
}

// Do runs fn on a locked thread inside the namespace at path (path empty:
// on the current one). Whatever fn forks is born in the namespace.
func Do(path string, fn func() error) error {
	if path == "" {
		return fn()
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		restore, err := Enter(path)
		if err == nil {
			err = fn()
		}
		if restore() {
			runtime.UnlockOSThread()
		}
		done <- err
	}()
	return <-done
}

// Start starts cmd in the namespace at path (path empty: cmd.Start()).
func Start(path string, cmd *exec.Cmd) error {
	return Do(path, cmd.Start)
}

// Inode returns the namespace's inode number (what /proc/<pid>/ns/net
// links to as net:[inode]), for comparing namespaces.
func Inode(path string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("netns: %w", err)
	}
	return st.Ino, nil
}
