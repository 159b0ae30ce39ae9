package network

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// NetnsDir is where named namespaces live (as `ip netns` keeps them).
const NetnsDir = "/var/run/netns"

// nsfsMagic is the filesystem type of a namespace file.
const nsfsMagic = 0x6e736673

// ErrNamespaceExists: a namespace file of that name is already there.
var ErrNamespaceExists = errors.New("network: namespace already exists")

// mountMu serializes the set-up of NetnsDir's mount within the process.
var mountMu sync.Mutex

// NamespacePath is the file of the namespace the client creates for an
// allocation.
func NamespacePath(allocID string) string {
	return filepath.Join(NetnsDir, NamespacePrefix+allocID)
}

// CreateNamespace creates a named network namespace at path (under
// NetnsDir, so `ip netns` lists it): a thread of its own is moved into a
// new namespace (unshare), the namespace is bind-mounted on path, and the
// thread returns to the agent's namespace; a thread that cannot return is
// left locked and dies with its goroutine. An existing path is
// ErrNamespaceExists.
func CreateNamespace(path string) error {
	if err := ensureSharedDir(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: %s", ErrNamespaceExists, path)
	}
	if err != nil {
		return fmt.Errorf("creating namespace file: %w", err)
	}
	f.Close()
	errCh := make(chan error, 1)
	go func() { errCh <- bindNewNamespace(path) }()
	if err := <-errCh; err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("creating namespace %s: %w", path, err)
	}
	return nil
}

// bindNewNamespace runs on its own goroutine: it locks the thread, enters
// a new network namespace, bind-mounts it on path and goes back.
func bindNewNamespace(path string) error {
	runtime.LockOSThread()
	self := fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid())
	orig, err := os.Open(self)
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer orig.Close()
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("unshare: %w", err)
	}
	mountErr := unix.Mount(self, path, "none", unix.MS_BIND, "")
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		// The thread stays locked: it is destroyed when this goroutine ends.
		return errors.Join(mountErr, fmt.Errorf("returning to the agent's namespace: %w", err))
	}
	runtime.UnlockOSThread()
	if mountErr != nil {
		return fmt.Errorf("bind mount: %w", mountErr)
	}
	return nil
}

// ensureSharedDir makes dir a mount point with shared propagation, as
// `ip netns add` does, so namespaces mounted later reach the mount
// namespaces of tasks started earlier and their unmount does too.
func ensureSharedDir(dir string) error {
	mountMu.Lock()
	defer mountMu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	for bound := false; ; bound = true {
		err := unix.Mount("", dir, "none", unix.MS_SHARED|unix.MS_REC, "")
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EINVAL) || bound {
			return fmt.Errorf("making %s a shared mount: %w", dir, err)
		}
		// Not a mount point yet: bind it onto itself first.
		if err := unix.Mount(dir, dir, "none", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind-mounting %s: %w", dir, err)
		}
	}
}

// DeleteNamespace unmounts and removes a named namespace; one that is not
// there is not an error.
func DeleteNamespace(path string) error {
	if err := unix.Unmount(path, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("unmounting namespace %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing namespace file %s: %w", path, err)
	}
	return nil
}

// IsNamespace reports whether path is a live namespace: a namespace file
// bind-mounted there, or /proc/<pid>/ns/net of a live process (both are
// nsfs; an unmounted file under NetnsDir is not).
func IsNamespace(path string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return false
	}
	return st.Type == nsfsMagic
}

// NamespaceInode returns the inode of the namespace at path (what
// /proc/<pid>/ns/net of a process in it shows as net:[inode]).
func NamespaceInode(path string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}
