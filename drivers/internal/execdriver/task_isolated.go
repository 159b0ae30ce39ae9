package execdriver

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/internal/netns"
)

// startIsolated runs the command through the task init (exec): as the
// task's user, in new PID and mount namespaces with only the task and alloc
// dirs writable, inside cgroups with the task's limits and pidsLimit. The
// recorded pid is the init's (host pid); it returns once the command runs,
// or with the reason it could not start, leaving nothing behind.
func (t *task) startIsolated(iso *isolation, cmdPath string, args []string, stdout, stderr *os.File, pidsLimit int64, logger hclog.Logger) error {
	u, err := lookupUser(t.cfg.User)
	if err != nil {
		return err
	}
	if err := prepareDirs(t.cfg, u); err != nil {
		return err
	}
	mounts, err := bindMountsFor(t.cfg) // volumes.go
	if err != nil {
		return err
	}
	etc, err := networkFilesFor(t.cfg) // network.go
	if err != nil {
		return err
	}
	mounts = append(mounts, etc...)
	if t.state.Cgroups, err = iso.cgroups.setup(t.cfg.ID, t.cfg.Resources, pidsLimit); err != nil {
		return err
	}
	t.state.CgroupV2 = iso.cgroups.V2
	cmd, specW, reportR, err := t.launchInit(iso, stdout, stderr, logger)
	if err != nil {
		removeCgroups(t.state.Cgroups)
		return err
	}
	dec := json.NewDecoder(reportR)
	err = sendSpec(specW, initSpecFor(t.cfg, cmdPath, args, u, mounts))
	if err == nil {
		err = awaitStart(reportR, dec)
	}
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		reportR.Close()
		removeCgroups(t.state.Cgroups)
		return fmt.Errorf("starting %s: %w", cmdPath, err)
	}
	t.started(cmd.Process.Pid)
	go t.waitInit(cmd, reportR, dec)
	return nil
}

// launchInit starts the init inside the task's cgroups and returns it with
// the parent's ends of its spec and report pipes.
func (t *task) launchInit(iso *isolation, stdout, stderr *os.File, logger hclog.Logger) (*exec.Cmd, *os.File, *os.File, error) {
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	reportR, reportW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return nil, nil, nil, err
	}
	defer specR.Close() // the init holds its own copies
	defer reportW.Close()
	cgFd := -1
	if t.state.CgroupV2 {
		dir, err := os.Open(t.state.Cgroups[0])
		if err != nil {
			specW.Close()
			reportR.Close()
			return nil, nil, nil, fmt.Errorf("opening cgroup: %w", err)
		}
		defer dir.Close()
		cgFd = int(dir.Fd())
	}
	cmd := initCommand(iso, stdout, stderr, specR, reportW, cgFd)
	if t.state.CgroupV2 {
		err = netns.Start(netnsPath(t.cfg), cmd) // network.go
	} else {
		var restoreErr error
		err, restoreErr = startInCgroups(cmd, t.state.Cgroups, netnsPath(t.cfg))
		if restoreErr != nil {
			logger.Error("plugin thread left in a task cgroup", "task", t.cfg.ID, "error", restoreErr)
		}
	}
	if err != nil {
		specW.Close()
		reportR.Close()
		return nil, nil, nil, fmt.Errorf("starting the task init: %w", err)
	}
	if !t.state.CgroupV2 {
		if err := joinCgroups(t.state.Cgroups, cmd.Process.Pid); err != nil {
			logger.Warn("task init not in all its cgroups", "task", t.cfg.ID, "error", err)
		}
	}
	return cmd, specW, reportR, nil
}

// waitInit reaps the init and records how the command ended: the status
// the init reported for its child (a signal that killed the command is
// seen as such, not as the init's exit code 128+n), else, when the init
// itself was killed, the init's status.
func (t *task) waitInit(cmd *exec.Cmd, reports *os.File, dec *json.Decoder) {
	res := exitResultOf(cmd, cmd.Wait())
	for {
		var rep initReport
		if dec.Decode(&rep) != nil {
			break
		}
		if rep.Exited {
			res.ExitCode, res.Signal = rep.ExitCode, rep.Signal
		}
	}
	reports.Close()
	res.OOMKilled = oomKilled(t.state.Cgroups)
	t.finish(res)
}
