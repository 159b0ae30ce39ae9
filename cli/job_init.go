package cli

// Nomad's `job init`: write an example job file (website/cli-jobs.md).

import (
	"errors"
	"fmt"
	"os"
)

// defaultInitName is the file `job init` writes without an argument.
const defaultInitName = "example.nomad.hcl"

// jobInitCommand is `job init [-short] [-connect] [FILE]`: it never
// overwrites a file (exit 1).
func jobInitCommand(m *Meta, args []string) int {
	f := m.newLocalFlags("job init", "[options] [FILE]")
	short := f.Bool("short", false, "write the example without its comments")
	connect := f.Bool("connect", false, "write an example of two services talking over a bridge network")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return m.wrongArgs(f, "at most one argument: the file to write")
	}
	file := defaultInitName
	if len(pos) == 1 {
		file = pos[0]
	}
	content := exampleJob
	switch {
	case *connect && *short:
		content = exampleConnectJobShort
	case *connect:
		content = exampleConnectJob
	case *short:
		content = exampleJobShort
	}
	if _, err := os.Stat(file); err == nil {
		return m.errorf("job init: job file %q already exists", file)
	} else if !errors.Is(err, os.ErrNotExist) {
		return m.errorf("job init: checking %q: %v", file, err)
	}
	// O_EXCL: a file appearing between the check and the write is not clobbered.
	fd, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return m.errorf("job init: writing %q: %v", file, err)
	}
	if _, err := fd.WriteString(content); err != nil {
		fd.Close()
		return m.errorf("job init: writing %q: %v", file, err)
	}
	if err := fd.Close(); err != nil {
		return m.errorf("job init: writing %q: %v", file, err)
	}
	fmt.Fprintf(m.Out, "Example job file written to %s\n", file)
	return exitOK
}
