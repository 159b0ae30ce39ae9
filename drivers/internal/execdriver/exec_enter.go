package execdriver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nomadish/nomadish/drivers/internal/netns"
)

// defaultExecPath is the PATH searched when the task's environment has none.
const defaultExecPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// execTarget is the isolation of a running task that an exec'd command
// joins, read from the task's main process (its "init"): whatever the
// driver set up for the task (namespaces, chroot, user) is found there, so
// exec needs no knowledge of how the task was started.
type execTarget struct {
	pid int
	// root is the task's root directory as seen from the plugin: "/" when
	// the task shares our mount namespace and root, else /proc/<pid>/root
	// (the command is chrooted there, which enters the task's mount tree).
	root string
	// dir is the working directory inside root.
	dir string
	// pidNS is set when the task is in another PID namespace: the command
	// is forked into it (setns on the forking thread).
	pidNS bool
	// netNS is set when the task is in another network namespace (a
	// group network): the command is forked into it too.
	netNS bool
	// cred is the task's user and groups; nil when the command can keep
	// ours (same user, or we are not root and could not switch anyway).
	cred *syscall.Credential
	// cgroups are the task's cgroup directories (may be empty); cgroupV2
	// says they are one cgroup v2 directory, else cgroup v1 controllers.
	cgroups  []string
	cgroupV2 bool
}

// newExecTarget inspects the task's main process pid, whose working
// directory is taskDir when it shares our root; cgroups and v2 are the
// task's (driverState.Cgroups, CgroupV2).
func newExecTarget(pid int, taskDir string, cgroups []string, v2 bool) (*execTarget, error) {
	t := &execTarget{pid: pid, root: "/", dir: taskDir, cgroups: cgroups, cgroupV2: v2}
	proc := fmt.Sprintf("/proc/%d", pid)
	if differs, err := nsDiffers(proc, "mnt"); err != nil {
		return nil, err
	} else if differs || !sameRoot(proc) {
		t.root = proc + "/root"
		t.dir = innerCwd(proc)
	}
	var err error
	if t.pidNS, err = nsDiffers(proc, "pid"); err != nil {
		return nil, err
	}
	if t.netNS, err = nsDiffers(proc, "net"); err != nil {
		return nil, err
	}
	if t.cred, err = procCredential(proc); err != nil {
		return nil, err
	}
	return t, nil
}

// nsDiffers reports whether process proc is in another namespace of kind
// than the plugin.
func nsDiffers(proc, kind string) (bool, error) {
	theirs, err := os.Readlink(proc + "/ns/" + kind)
	if err != nil {
		return false, fmt.Errorf("reading the task's %s namespace: %w", kind, err)
	}
	ours, err := os.Readlink("/proc/self/ns/" + kind)
	if err != nil {
		return false, fmt.Errorf("reading our %s namespace: %w", kind, err)
	}
	return theirs != ours, nil
}

// sameRoot reports whether proc has our root directory (not chrooted).
func sameRoot(proc string) bool {
	a, err1 := os.Stat(proc + "/root/")
	b, err2 := os.Stat("/")
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// innerCwd is the working directory of proc as a path inside its root:
// the kernel prints both links relative to our root, so when the cwd is
// below the root the difference is the inner path; otherwise "/".
func innerCwd(proc string) string {
	root, err1 := os.Readlink(proc + "/root")
	cwd, err2 := os.Readlink(proc + "/cwd")
	if err1 != nil || err2 != nil {
		return "/"
	}
	if root == "/" {
		return cwd
	}
	if rel, err := filepath.Rel(root, cwd); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Join("/", rel)
	}
	return "/"
}

// procCredential reads the real uid, gid and groups of proc from its
// status file.
func procCredential(proc string) (*syscall.Credential, error) {
	b, err := os.ReadFile(proc + "/status")
	if err != nil {
		return nil, fmt.Errorf("reading the task's user: %w", err)
	}
	cred := &syscall.Credential{}
	for _, line := range strings.Split(string(b), "\n") {
		key, val, _ := strings.Cut(line, ":")
		f := strings.Fields(val)
		switch {
		case key == "Uid" && len(f) > 0:
			n, _ := strconv.ParseUint(f[0], 10, 32)
			cred.Uid = uint32(n)
		case key == "Gid" && len(f) > 0:
			n, _ := strconv.ParseUint(f[0], 10, 32)
			cred.Gid = uint32(n)
		case key == "Groups":
			for _, g := range f {
				n, _ := strconv.ParseUint(g, 10, 32)
				cred.Groups = append(cred.Groups, uint32(n))
			}
		}
	}
	if os.Geteuid() != 0 || (int(cred.Uid) == os.Geteuid() && int(cred.Gid) == os.Getegid()) {
		return nil, nil
	}
	return cred, nil
}

// lookPath finds command the way the task's shell would: a name with a
// slash is taken as is (relative to the working directory), a bare name is
// searched in pathEnv (the task's PATH) below the task's root. The result
// is a path inside the task's root.
func (t *execTarget) lookPath(command, pathEnv string) (string, error) {
	if strings.Contains(command, "/") {
		if filepath.IsAbs(command) {
			return command, nil
		}
		return filepath.Join(t.dir, command), nil
	}
	if pathEnv == "" {
		pathEnv = defaultExecPath
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(t.dir, dir)
		}
		p := filepath.Join(dir, command)
		if isExecutable(filepath.Join(t.root, p)) {
			return p, nil
		}
	}
	return "", fmt.Errorf("exec: %q not found in the task's PATH %q", command, pathEnv)
}

// attrs fills the command's process attributes: the task's root (chroot),
// user, and the working directory inside it.
func (t *execTarget) attrs(attr *syscall.SysProcAttr) string {
	if t.root != "/" {
		attr.Chroot = t.root
	}
	attr.Credential = t.cred
	return t.dir
}

// start starts cmd inside the task. A cgroup v2 task's cgroup is joined
// at clone time (UseCgroupFD). When the task has its own PID namespace or
// cgroup v1 cgroups, the fork happens from a locked OS thread that first
// joins them (setns(CLONE_NEWPID) only affects children; cgroup v1
// membership is per thread) and then goes back; a thread that cannot go
// back stays locked so the Go runtime retires it.
func (t *execTarget) start(cmd *exec.Cmd) error {
	if t.cgroupV2 && len(t.cgroups) > 0 {
		dir, err := os.Open(t.cgroups[0])
		if err != nil {
			return fmt.Errorf("opening the task's cgroup: %w", err)
		}
		defer dir.Close()
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(dir.Fd())
	}
	if !t.pidNS && !t.netNS && (t.cgroupV2 || len(t.cgroups) == 0) {
		return cmd.Start()
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		restore, err := t.enterThread()
		if err == nil {
			err = cmd.Start()
		}
		if restore() {
			runtime.UnlockOSThread()
		}
		done <- err
	}()
	return <-done
}

// enterThread moves the calling (locked) thread into the task's PID
// namespace for children and its cgroups. restore moves it back and
// reports whether that worked.
func (t *execTarget) enterThread() (restore func() bool, err error) {
	tid := syscall.Gettid()
	var undo []func() error
	restore = func() bool {
		ok := true
		for i := len(undo) - 1; i >= 0; i-- {
			if undo[i]() != nil {
				ok = false
			}
		}
		return ok
	}
	if len(t.cgroups) > 0 && !t.cgroupV2 {
		orig, err := threadCgroups(tid, t.cgroups)
		if err != nil {
			return restore, err
		}
		undo = append(undo, func() error { return moveThread(tid, orig) })
		if err := moveThread(tid, t.cgroups); err != nil {
			return restore, err
		}
	}
	if t.netNS {
		back, err := netns.Enter(fmt.Sprintf("/proc/%d/ns/net", t.pid))
		if err != nil {
			return restore, fmt.Errorf("entering the task's network namespace: %w", err)
		}
		undo = append(undo, func() error {
			if !back() {
				return errors.New("leaving the task's network namespace")
			}
			return nil
		})
	}
	if t.pidNS {
		undo = append(undo, func() error { return setns("/proc/self/ns/pid") })
		if err := setns(fmt.Sprintf("/proc/%d/ns/pid", t.pid)); err != nil {
			return restore, fmt.Errorf("entering the task's PID namespace: %w", err)
		}
	}
	return restore, nil
}

// setns makes the calling thread's future children members of the PID
// namespace at path.
func setns(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Setns(int(f.Fd()), unix.CLONE_NEWPID)
}
