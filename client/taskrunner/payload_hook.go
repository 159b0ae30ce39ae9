package taskrunner

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nomadish/nomadish/structs"
)

// payloadHook writes a dispatched job's payload into the task's local dir
// at its dispatch_payload file (Nomad's dispatch_payload block), before
// each start. The file is relative to the local dir; a path that escapes
// it (.., an absolute path, or a symlink out of it) is refused.
var payloadHook = prestartHook{name: "dispatch_payload", run: writePayload}

func writePayload(tr *TaskRunner) (*structs.TaskEvent, error) {
	dp := tr.cfg.Task.DispatchPayload
	alloc := tr.alloc()
	if dp == nil || alloc == nil || alloc.Job == nil {
		return nil, nil
	}
	if err := structs.CheckPayloadFile(dp.File); err != nil {
		return nil, err
	}
	local := tr.cfg.AllocDir.TaskDir(tr.cfg.Task.Name).LocalDir
	if err := writeInDir(local, dp.File, alloc.Job.Payload); err != nil {
		return nil, fmt.Errorf("writing payload to %s: %w", dp.File, err)
	}
	return nil, nil
}

// writeInDir writes data to name inside dir through an os.Root, so no
// path component (a symlink included) can lead out of dir.
func writeInDir(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if sub := filepath.Dir(name); sub != "." {
		if err := root.MkdirAll(sub, 0o755); err != nil {
			return err
		}
	}
	return root.WriteFile(name, data, 0o644)
}
