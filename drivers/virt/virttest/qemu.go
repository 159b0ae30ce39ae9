package virttest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Console collects a guest's console lines and lets a caller wait for one.
type Console struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{} // closed and replaced on each new line and at EOF
	done  bool
}

// NewConsole reads lines from r until EOF.
func NewConsole(r io.Reader) *Console {
	c := &Console{more: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			c.add(strings.TrimRight(sc.Text(), "\r"), false)
		}
		c.add("", true)
	}()
	return c
}

func (c *Console) add(line string, eof bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if eof {
		c.done = true
	} else {
		c.lines = append(c.lines, line)
	}
	close(c.more)
	c.more = make(chan struct{})
}

// Wait returns the lines up to and including the first one equal to want;
// at EOF or when ctx ends, an error holding all lines so far.
func (c *Console) Wait(ctx context.Context, want string) ([]string, error) {
	for {
		c.mu.Lock()
		for i, l := range c.lines {
			if l == want {
				out := append([]string(nil), c.lines[:i+1]...)
				c.mu.Unlock()
				return out, nil
			}
		}
		done, more, all := c.done, c.more, strings.Join(c.lines, "\n")
		c.mu.Unlock()
		if done {
			return nil, fmt.Errorf("console ended without %q:\n%s", want, all)
		}
		select {
		case <-more:
		case <-ctx.Done():
			return nil, fmt.Errorf("no %q on the console (%v):\n%s", want, ctx.Err(), all)
		}
	}
}

// SeedLines is what the guest printed between SeedBegin and SeedEnd in
// lines (which end with SeedEnd).
func SeedLines(lines []string) []string {
	for i, l := range lines {
		if l == SeedBegin {
			return lines[i+1 : len(lines)-1]
		}
	}
	return nil
}

// SeedFiles is the seed's file names from the SeedFilesPrefix line.
func SeedFiles(lines []string) []string {
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, SeedFilesPrefix); ok {
			return strings.Fields(rest)
		}
	}
	return nil
}

// QEMU is a guest running under plain qemu-system-x86_64 (TCG).
type QEMU struct {
	Cmd     *exec.Cmd
	Console *Console
	monitor string
}

// BootQEMU starts g under TCG with its console on stdout, a human monitor
// on a unix socket in dir, and disks as virtio drives vda, vdb, ... (raw;
// a name ending in .iso is attached read-only). ctx kills qemu.
func BootQEMU(ctx context.Context, dir string, g Guest, disks ...string) (*QEMU, error) {
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		return nil, fmt.Errorf("qemu-system-x86_64 is required (scripts/setup.sh test installs qemu-system-x86): %w", err)
	}
	mon := filepath.Join(dir, "mon.sock")
	args := []string{"-accel", "tcg", "-m", "256", "-nodefaults", "-no-user-config",
		"-display", "none", "-serial", "stdio", "-monitor", "unix:" + mon + ",server=on,wait=off",
		"-kernel", g.Kernel, "-initrd", g.Initrd, "-append", Cmdline, "-no-reboot"}
	for _, d := range disks {
		opt := "file=" + d + ",format=raw,if=virtio"
		if strings.HasSuffix(d, ".iso") {
			opt += ",readonly=on"
		}
		args = append(args, "-drive", opt)
	}
	cmd := exec.CommandContext(ctx, qemu, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &QEMU{Cmd: cmd, Console: NewConsole(out), monitor: mon}, nil
}

// Monitor sends one human monitor command (e.g. "system_powerdown").
func (q *QEMU) Monitor(command string) error {
	c, err := net.Dial("unix", q.monitor)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := io.WriteString(c, command+"\n"); err != nil {
		return err
	}
	// Closing before qemu ran the command may drop it: read on until the
	// prompt that follows it (the banner's prompt is the first).
	var seen []byte
	buf := make([]byte, 512)
	for strings.Count(string(seen), "(qemu)") < 2 {
		n, err := c.Read(buf)
		if err != nil {
			return fmt.Errorf("monitor %q: %w (read %q)", command, err, seen)
		}
		seen = append(seen, buf[:n]...)
	}
	return nil
}

// Kill stops qemu and reaps it.
func (q *QEMU) Kill() {
	_ = q.Cmd.Process.Kill()
	_ = q.Cmd.Wait()
}
