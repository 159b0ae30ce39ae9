package logging

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// The log directory (<alloc>/alloc/logs) is writable by the tasks of the
// allocation, while the plugin writing into it runs as root: a task that
// plants a symlink there (web.stdout.3 -> /etc/some-file, or the logs dir
// -> /etc) must not make the plugin write host files. So the directory is
// opened once without following a final symlink, and every log file is
// opened relative to it with O_NOFOLLOW and must be a regular file.

// ErrNotRegular is a log file or FIFO path that is not what the plugin
// created (a symlink, a FIFO where a file belongs, ...).
var ErrNotRegular = errors.New("logging: log path replaced by something else")

// openDir opens dir (not a symlink) for the *at calls below.
func openDir(dir string) (*os.File, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("logging: opening log dir %s (a symlink is refused): %w", dir, err)
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// openLogFile opens name in dir for appending, creating it; a symlink or
// anything but a regular file is refused (O_NONBLOCK: a planted FIFO does
// not block the open).
func openLogFile(dir *os.File, name string) (*os.File, error) {
	path := filepath.Join(dir.Name(), name)
	fd, err := syscall.Openat(int(dir.Fd()), name,
		syscall.O_CREAT|syscall.O_WRONLY|syscall.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("logging: opening log file %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("logging: %s: %w", path, ErrNotRegular)
	}
	return f, nil
}

// openFIFO opens the FIFO at path with flags, refusing a symlink or
// anything but a FIFO (a task replacing its FIFO with a link to a host
// file would otherwise have the plugin copy that file into its logs).
func openFIFO(path string, flags int) (*os.File, error) {
	f, err := os.OpenFile(path, flags|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("logging: opening fifo %s: %w", path, err)
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		f.Close()
		return nil, fmt.Errorf("logging: fifo %s: %w", path, ErrNotRegular)
	}
	return f, nil
}
