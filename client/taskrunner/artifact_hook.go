package taskrunner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/nomadish/nomadish/client/getter"
	"github.com/nomadish/nomadish/structs"
)

// artifactHook downloads the task's artifacts (client/getter) before it
// starts, after a "Downloading Artifacts" event. As Nomad, each artifact is
// fetched once per allocation run: a restart after a failure fetches only
// those not fetched yet, and once all are there later restarts fetch nothing,
// also after a client restart (the set is persisted with the task state). A
// failure is a "Failed Artifact Download" event with the reason in
// DownloadError, and the restart policy decides what follows.
var artifactHook = prestartHook{name: "artifacts", run: (*TaskRunner).fetchArtifacts}

// artifactState is what the artifact hook remembers between starts, and
// across client restarts (persisted with the task's state).
type artifactState struct {
	fetched map[string]bool // artifactKey -> downloaded
}

// keys lists the fetched artifacts' keys (for persist; caller holds mu).
func (s *artifactState) keys() []string {
	out := make([]string, 0, len(s.fetched))
	for k := range s.fetched {
		out = append(out, k)
	}
	return out
}

// restoreArtifacts is the state of a persisted key list.
func restoreArtifacts(keys []string) artifactState {
	s := artifactState{fetched: make(map[string]bool, len(keys))}
	for _, k := range keys {
		s.fetched[k] = true
	}
	return s
}

// artifactFetched reports whether the artifact with key was downloaded.
func (tr *TaskRunner) artifactFetched(key string) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.artifacts.fetched[key]
}

func (tr *TaskRunner) markArtifactFetched(key string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.artifacts.fetched == nil {
		tr.artifacts.fetched = map[string]bool{}
	}
	tr.artifacts.fetched[key] = true
}

func (tr *TaskRunner) fetchArtifacts() (*structs.TaskEvent, error) {
	var todo []*structs.TaskArtifact
	for _, a := range tr.cfg.Task.Artifacts {
		if a != nil && !tr.artifactFetched(artifactKey(a)) {
			todo = append(todo, a)
		}
	}
	if len(todo) == 0 {
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
	for _, a := range todo {
		req := artifactRequest(a, tr.cfg.Task.User, env, nodeVals)
		req.AllocDir, req.TaskDir = tr.cfg.AllocDir.Dir, tr.cfg.AllocDir.TaskDir(tr.cfg.Task.Name).Dir
		tr.logger.Debug("downloading artifact", "source", req.Source, "destination", req.Dest)
		if err := getter.Get(ctx, cfg, req); err != nil {
			err = fmt.Errorf("failed to download artifact %q: %v", a.GetterSource, err)
			ev := structs.NewTaskEvent(structs.TaskArtifactDownloadFailed, tr.now())
			ev.DownloadError = err.Error()
			return ev, err
		}
		tr.markArtifactFetched(artifactKey(a))
	}
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
	return hex.EncodeToString(sum[:])
}
