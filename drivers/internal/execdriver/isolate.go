package execdriver

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// The exec driver's side of task isolation: checking the host can isolate,
// preparing the task's dirs for its user, starting the init (nsinit.go) in
// new namespaces inside the task's cgroups.

// DefaultUser runs exec tasks that set no user, as in Nomad.
const DefaultUser = "nobody"

// initStartTimeout bounds how long StartTask waits for the init to set up
// the mounts and start the command.
const initStartTimeout = 10 * time.Second

// isolation is what the host offers exec tasks; checkIsolation builds it.
type isolation struct {
	cgroups cgroupLayout
	exe     string // this binary, started as the init
}

// checkIsolation reports whether tasks can be isolated here: root, PID and
// mount namespaces, usable cgroups, and a path to this executable. The
// error says what is missing.
func checkIsolation() (*isolation, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("exec driver must run as root (namespaces and cgroups)")
	}
	for _, ns := range []string{"pid", "mnt"} {
		if _, err := os.Stat("/proc/self/ns/" + ns); err != nil {
			return nil, fmt.Errorf("%s namespaces unavailable: %w", ns, err)
		}
	}
	cg, err := detectCgroups(cgroupRoot)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the nomadish executable to start the task init: %w", err)
	}
	return &isolation{cgroups: cg, exe: exe}, nil
}

// taskUser is the resolved user a task runs as.
type taskUser struct {
	uid, gid uint32
	groups   []uint32
}

// lookupUser resolves name (DefaultUser when empty; a name or a numeric
// uid). root is refused, as by Nomad's default user.denylist for exec.
func lookupUser(name string) (*taskUser, error) {
	if name == "" {
		name = DefaultUser
	}
	u, err := user.Lookup(name)
	if err != nil {
		if _, numErr := strconv.Atoi(name); numErr != nil {
			return nil, fmt.Errorf("looking up user %q: %w", name, err)
		}
		if u, err = user.LookupId(name); err != nil {
			return nil, fmt.Errorf("looking up user %q: %w", name, err)
		}
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user %q: %w", name, err)
	}
	if uid == 0 {
		return nil, fmt.Errorf("user %q: exec tasks may not run as root", name)
	}
	tu := &taskUser{uid: uint32(uid), gid: uint32(gid)}
	ids, _ := u.GroupIds() // none: just the primary group
	for _, g := range ids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			tu.groups = append(tu.groups, uint32(n))
		}
	}
	return tu, nil
}

// prepareDirs makes the task's dirs usable by its user, as Nomad does:
// the task dir and its local, secrets and tmp dirs are chowned to the user,
// the alloc dir's shared data and tmp dirs become world-writable (tasks of
// one group may run as different users), and every ancestor of the task
// and alloc dirs gets the search bit for others (o+x, no listing) so the
// user can reach them (a dev-mode data dir is 0700).
func prepareDirs(cfg *base.TaskConfig, u *taskUser) error {
	for _, d := range []string{cfg.TaskDir, cfg.AllocDir} {
		if err := ensureSearchable(d); err != nil {
			return err
		}
	}
	for _, d := range []string{"", "local", "secrets", "tmp"} {
		p := filepath.Join(cfg.TaskDir, d)
		if err := os.Lchown(p, int(u.uid), int(u.gid)); err != nil && !(d != "" && errors.Is(err, os.ErrNotExist)) {
			return fmt.Errorf("giving %s to the task user: %w", p, err)
		}
	}
	for _, d := range []string{"data", "tmp"} {
		p := filepath.Join(cfg.AllocDir, d)
		if err := chmodDirNoFollow(p, 0o777); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("opening shared dir %s to the task: %w", p, err)
		}
	}
	return nil
}

// chmodDirNoFollow sets the mode of the directory p itself: a symlink
// there (a task of the group replaced the shared dir with one, say to
// /etc) is refused instead of having its target made world-writable.
func chmodDirNoFollow(p string, mode os.FileMode) error {
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return syscall.Fchmod(fd, uint32(mode.Perm()))
}

// ensureSearchable adds o+x to every ancestor of dir that lacks it.
func ensureSearchable(dir string) error {
	for d := filepath.Dir(filepath.Clean(dir)); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("checking %s: %w", d, err)
		}
		if st.Mode().Perm()&0o001 == 0 {
			if err := os.Chmod(d, st.Mode().Perm()|0o001); err != nil {
				return fmt.Errorf("making %s searchable for the task user: %w", d, err)
			}
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// writableDirs are the dirs the task may write: the task dir (with its
// local, secrets and tmp dirs, which allocdir puts inside it) and the
// alloc dir, without duplicates or dirs already inside another.
func writableDirs(cfg *base.TaskConfig) []string {
	var out []string
	for _, d := range []string{cfg.TaskDir, cfg.AllocDir} {
		if d == "" {
			continue
		}
		d = filepath.Clean(d)
		dup := false
		for _, o := range out {
			dup = dup || under(d, o)
		}
		if !dup {
			out = append(out, d)
		}
	}
	return out
}

// initSpecFor builds the init's spec. The task's TMPDIR is its tmp dir
// (when present and the env sets none), since /tmp is read-only.
func initSpecFor(cfg *base.TaskConfig, path string, args []string, u *taskUser, mounts []bindMount) *initSpec {
	env := cfg.Env
	tmp := filepath.Join(cfg.TaskDir, "tmp")
	if _, ok := env["TMPDIR"]; !ok {
		if st, err := os.Stat(tmp); err == nil && st.IsDir() {
			env = make(map[string]string, len(cfg.Env)+1)
			for k, v := range cfg.Env {
				env[k] = v
			}
			env["TMPDIR"] = tmp
		}
	}
	return &initSpec{
		Path: path, Args: append([]string{path}, args...), Env: envList(env), Dir: cfg.TaskDir,
		UID: u.uid, GID: u.gid, Groups: u.groups, Writable: writableDirs(cfg), Mounts: mounts,
	}
}

// initCommand returns the command starting the init in new PID and mount
// namespaces and its own process group, with the spec pipe as fd 3 and the
// report pipe as fd 4. For cgroup v2 it is cloned straight into cgDir's
// cgroup (cgFd, which the caller closes after Start).
func initCommand(iso *isolation, stdout, stderr *os.File, specR, reportW *os.File, cgFd int) *exec.Cmd {
	cmd := exec.Command(iso.exe, InitArgs...)
	cmd.Env = []string{"GOMAXPROCS=1"} // the init's own; the task's is in the spec
	if stdout != nil {                 // a nil *os.File in the interface would close fd 1
		cmd.Stdout = stdout
	}
	if stderr != nil {
		cmd.Stderr = stderr
	}
	cmd.ExtraFiles = []*os.File{specR, reportW}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:    true,
		Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS,
	}
	if cgFd >= 0 {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cgFd
	}
	return cmd
}

// sendSpec writes the spec to the init and closes the pipe.
func sendSpec(w *os.File, spec *initSpec) error {
	defer w.Close()
	_ = w.SetWriteDeadline(time.Now().Add(initStartTimeout))
	if err := json.NewEncoder(w).Encode(spec); err != nil {
		return fmt.Errorf("sending the task spec to the init: %w", err)
	}
	return nil
}

// awaitStart reads the init's first report: nil once the command runs, or
// the init's setup error.
func awaitStart(r *os.File, dec *json.Decoder) error {
	_ = r.SetReadDeadline(time.Now().Add(initStartTimeout))
	defer r.SetReadDeadline(time.Time{})
	var rep initReport
	if err := dec.Decode(&rep); err != nil {
		return fmt.Errorf("task init did not start the command: %w", err)
	}
	if !rep.Started {
		return fmt.Errorf("task init: %s", rep.Error)
	}
	return nil
}
