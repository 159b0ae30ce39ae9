package taskrunner

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/nomadish/nomadish/client/getter"
	"github.com/nomadish/nomadish/structs"
)

// artifactHook downloads the task's artifacts (client/getter) before it
// starts, after a "Downloading Artifacts" event. As Nomad, each artifact is
// fetched once per task runner: a restart after a failure fetches only those
// not fetched yet, and once all are there later restarts fetch nothing. A
// failure is a "Failed Artifact Download" event with the reason in
// DownloadError, and the restart policy decides what follows.
var artifactHook = prestartHook{name: "artifacts", run: (*TaskRunner).fetchArtifacts}

// artifactState is what the artifact hook remembers between starts. It is
// owned by Run's goroutine (prestart hooks run there).
type artifactState struct {
	fetched map[string]bool // artifactKey -> downloaded
	allDone bool
}

func (tr *TaskRunner) fetchArtifacts() (*structs.TaskEvent, error) {
	arts := tr.cfg.Task.Artifacts
	if len(arts) == 0 || tr.artifacts.allDone {
		return nil, nil
	}
	tr.emit(structs.NewTaskEvent(structs.TaskDownloadingArtifacts, tr.now()), "Client is downloading artifacts", nil)
	cfg := getter.DefaultConfig()
	if tr.cfg.Artifacts != nil {
		cfg = *tr.cfg.Artifacts
	}
	ctx, cancel := tr.hookContext()
	defer cancel()
	var node *structs.Node
	if tr.cfg.Node != nil {
		node = tr.cfg.Node()
	}
	nodeVals := NodeValues(node, tr.cfg.Region)
	env := BuildEnv(tr.alloc(), tr.cfg.Task, tr.cfg.AllocDir, tr.cfg.Region, tr.cfg.Datacenter, nodeVals)
	if tr.artifacts.fetched == nil {
		tr.artifacts.fetched = map[string]bool{}
	}
	for _, a := range arts {
		key := artifactKey(a)
		if a == nil || tr.artifacts.fetched[key] {
			continue
		}
		req := artifactRequest(a, tr.cfg.Task.User, env, nodeVals)
		req.AllocDir, req.TaskDir = tr.cfg.AllocDir.Dir, tr.cfg.AllocDir.TaskDir(tr.cfg.Task.Name).Dir
		tr.logger.Debug("downloading artifact", "source", req.Source, "destination", req.Dest)
		if err := getter.Get(ctx, cfg, req); err != nil {
			err = fmt.Errorf("failed to download artifact %q: %v", a.GetterSource, err)
			ev := structs.NewTaskEvent(structs.TaskArtifactDownloadFailed, tr.now())
			ev.DownloadError = err.Error()
			return ev, err
		}
		tr.artifacts.fetched[key] = true
	}
	tr.artifacts.allDone = true
	return nil, nil
}

// artifactRequest interpolates an artifact's source, options, headers and
// destination with the task's environment and the node's values, as
// Nomad does; chown gives the files to the task's user.
func artifactRequest(a *structs.TaskArtifact, user string, env, nodeVals map[string]string) getter.Request {
	interp := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k] = Interpolate(v, env, nodeVals)
		}
		return out
	}
	req := getter.Request{
		Source:   Interpolate(a.GetterSource, env, nodeVals),
		Options:  interp(a.GetterOptions),
		Headers:  interp(a.GetterHeaders),
		Mode:     a.GetterMode,
		Insecure: a.GetterInsecure,
		Dest:     Interpolate(a.RelativeDest, env, nodeVals),
	}
	if req.Dest == "" {
		req.Dest = "local/"
	}
	if a.Chown {
		req.ChownUser = Interpolate(user, env, nodeVals)
	}
	return req
}

// artifactKey identifies an artifact as written in the job.
func artifactKey(a *structs.TaskArtifact) string {
	b, _ := json.Marshal(a)
	sum := sha256.Sum256(b)
	return string(sum[:])
}

// hookContext returns a context cancelled when the runner is killed or
// detached, so that a long download does not hold up a stop.
func (tr *TaskRunner) hookContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-tr.killCh:
		case <-tr.detachCh:
		case <-ctx.Done():
		}
		cancel()
	}()
	return ctx, cancel
}
